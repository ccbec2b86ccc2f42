/** Country calling codes for normalising local numbers (ISO 3166-1 alpha-2 → code). */
const CALLING_CODES: Record<string, string> = {
  AT: '43', AU: '61', BE: '32', BG: '359', BR: '55', CA: '1', CH: '41', CN: '86', CY: '357', CZ: '420', DE: '49', DK: '45',
  EE: '372', ES: '34', FI: '358', FR: '33', GB: '44', GR: '30', HR: '385', HU: '36', IE: '353', IN: '91', IS: '354', IT: '39',
  JP: '81', LT: '370', LU: '352', LV: '371', MT: '356', MX: '52', NL: '31', NO: '47', NZ: '64', PL: '48', PT: '351', RO: '40',
  RU: '7', SE: '46', SI: '386', SK: '421', TR: '90', UA: '380', US: '1', ZA: '27',
};

/**
 * `+<digits>` for matching: numbers with `+` or `00` are international already; a local number
 * (`040 765 4321`) gets the default country's code in place of its trunk 0. Without a default
 * country (or one not in the table) a local number is kept as its digits, which still match
 * the same local spelling.
 */
export function normalizePhone(raw: string, defaultCountry: string | null): string | undefined {
  const trimmed = raw.trim();
  const digits = trimmed.replace(/\D/g, '');
  if (digits.length < 3) return undefined;
  if (trimmed.startsWith('+')) return `+${digits}`;
  if (digits.startsWith('00')) return `+${digits.slice(2)}`;
  const code = defaultCountry ? CALLING_CODES[defaultCountry.toUpperCase()] : undefined;
  if (!code) return digits;
  return `+${code}${digits.replace(/^0+/, '')}`;
}
