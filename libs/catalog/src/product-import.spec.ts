import { joinedString } from './product-import';

describe('category and category_id', () => {
  it('keep the string sent, commas and all; a number becomes its text', () => {
    expect(joinedString('Shoes, Running')).toBe('Shoes, Running');
    expect(joinedString(12)).toBe('12');
  });

  it('join a list with ", ", its items trimmed, empty and repeated ones left out', () => {
    expect(joinedString(['Bags', ' Leather ', '', 'Bags'])).toBe('Bags, Leather');
    expect(joinedString([12, 13])).toBe('12, 13');
    expect(joinedString([])).toBe('');
  });
});
