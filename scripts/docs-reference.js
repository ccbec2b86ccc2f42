#!/usr/bin/env node
/**
 * Writes the field tables of docs/reference/<datatype>.md from the field tables the imports read
 * (libs/<context>/src/<datatype>.fields.ts and the limits of libs/imports/src/limits.ts), between the
 * `<!-- fields:begin -->` and `<!-- fields:end -->` marks of each page; the prose around them is kept.
 * Run by hand after a field table changes (`npm run build && node scripts/docs-reference.js`) and
 * commit the pages. `--check` writes nothing and exits 1 naming each page that differs, which is what
 * test/docs/reference-pages.spec.ts runs. The tables are read from the build (dist/).
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const BEGIN = '<!-- fields:begin: written by scripts/docs-reference.js from the field tables; do not edit by hand -->';
const END = '<!-- fields:end -->';

/** The pages and the record tables they show, with the body key and route of their upload. */
function pages() {
  const { CUSTOMER_RECORD } = require('#mds/customers');
  const { PRODUCT_RECORD } = require('#mds/catalog');
  const { EVENT_RECORD, EVENT_DELETION_RECORD } = require('#mds/activity');
  const { SALE_RECORD } = require('#mds/sales');
  const { SHOP_RECORD } = require('#mds/settings');
  const { CAMPAIGN_RECORD, CAMPAIGN_EVENT_RECORD } = require('#mds/campaigns');
  return [
    { file: 'docs/reference/customers.md', records: [CUSTOMER_RECORD], key: 'customers', route: 'POST /api/customers/upload/' },
    { file: 'docs/reference/products.md', records: [PRODUCT_RECORD], key: 'products', route: 'POST /api/products/upload/' },
    { file: 'docs/reference/customer-events.md', records: [EVENT_RECORD, EVENT_DELETION_RECORD], key: 'events', route: 'POST /api/events/upload/' },
    { file: 'docs/reference/sales.md', records: [SALE_RECORD], key: 'sales', route: 'POST /api/sales/upload/', byLevel: true },
    { file: 'docs/reference/shops.md', records: [SHOP_RECORD], key: 'shops', route: 'POST /api/shops/upload/' },
    { file: 'docs/reference/campaigns.md', records: [CAMPAIGN_RECORD], key: 'campaigns', route: 'POST /api/campaigns/upload/' },
    { file: 'docs/reference/campaign-events.md', records: [CAMPAIGN_EVENT_RECORD], key: 'events', route: 'POST /api/campaigns/events/upload/' },
  ];
}

/** What a client may send for each kind of field (libs/imports/src/fields.ts says how it is coerced). */
const TYPES = {
  id: 'string or whole number',
  key: 'string',
  text: 'string',
  string: 'string',
  email: 'e-mail address',
  phone: 'phone number',
  country: 'country code',
  money: 'integer cents',
  quantity: 'number, 2 decimals',
  number: 'number',
  integer: 'whole number',
  boolean: 'boolean',
  date: 'date `YYYY-MM-DD`',
  datetime: 'date or datetime',
  list: 'list of strings',
  joined: 'string (a list is joined)',
  object: 'object',
  objects: 'list of objects',
  any: 'any JSON',
};

const n = (x) => (Number.isInteger(x) ? x.toLocaleString('en') : String(x));
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text) => '`' + cell(text) + '`';

function limitOf(spec, imports) {
  const { LIMITS, maxOf } = imports;
  const parts = [];
  if (spec.values) parts.push(`one of ${spec.values.map((v) => code(JSON.stringify(v))).join(', ')}`);
  const max = maxOf(spec);
  switch (spec.kind) {
    case 'id':
    case 'key':
    case 'text':
    case 'joined':
    case 'email':
    case 'phone':
      if (max !== undefined) parts.push(`${n(max)} characters`);
      break;
    case 'money':
    case 'quantity':
      parts.push(`at most ${n(max)} in size`);
      break;
    case 'number':
    case 'integer':
      if (spec.min !== undefined && spec.max !== undefined) parts.push(`from ${n(spec.min)} to ${n(spec.max)}`);
      else if (spec.min !== undefined) parts.push(`at least ${n(spec.min)}`);
      else if (spec.max !== undefined) parts.push(`at most ${n(spec.max)}`);
      break;
    case 'list':
      parts.push(`${n(max)} items of ${n(LIMITS.listItem)} characters`);
      break;
    case 'objects':
      parts.push(`${n(max)} items`);
      break;
    case 'date':
    case 'datetime':
      parts.push(`years ${String(LIMITS.yearMin).padStart(4, '0')}–${LIMITS.yearMax} in UTC`);
      break;
    case 'country':
      parts.push('2 letters');
      break;
  }
  if (spec.pattern && !spec.values) parts.push(`pattern ${code(spec.pattern)}`);
  return parts.join('; ');
}

function rows(table, imports, prefix = '') {
  const out = [];
  for (const [name, spec] of Object.entries(table)) {
    const field = prefix + name;
    out.push(`| ${code(field)} | ${TYPES[spec.kind]} | ${spec.required ? 'yes' : ''} | ${limitOf(spec, imports)} | ${code(JSON.stringify(spec.example))} | ${cell(spec.description)} |`);
    if (spec.members) out.push(...rows(spec.members, imports, `${field}${spec.kind === 'objects' ? '[]' : ''}.`));
  }
  return out;
}

function fieldTable(table, imports) {
  return ['| Field | Type | Required | Limit | Example | Meaning |', '|---|---|---|---|---|---|', ...rows(table, imports)].join('\n');
}

function recordSection(record, page, imports) {
  const lines = [`### ${record.name}`, '', record.description, ''];
  if (record.identifiedBy) lines.push(`Identified by at least one of ${record.identifiedBy.map(code).join(', ')}.`, '');
  lines.push(record.keepsOtherKeys ? 'Keys not listed here are kept as sent and returned.' : 'No other key is taken: one is a record error.', '');
  if (page.byLevel) {
    for (const level of ['transaction', 'row']) {
      const table = Object.fromEntries(Object.entries(record.fields).filter(([, spec]) => spec.level === level));
      lines.push(level === 'transaction' ? "Transaction fields (the transaction's, whichever row carries them):" : "Row fields (the row's own):", '', fieldTable(table, imports), '');
    }
  } else {
    lines.push(fieldTable(record.fields, imports), '');
  }
  lines.push(`An upload of these examples (\`${page.route}\`):`, '', '```json', JSON.stringify({ [page.key]: record.examples }, null, 2), '```', '');
  return lines.join('\n');
}

/** The text between the marks of one page. */
function render(page, imports = require('#mds/imports')) {
  return ['', ...page.records.map((record) => recordSection(record, page, imports))].join('\n');
}

/** Every page as it should be: `{file, expected, actual}` (actual null when the page has no marks). */
function check() {
  return pages().map((page) => {
    const file = path.join(ROOT, page.file);
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const begin = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    const generated = render(page);
    const actual = begin >= 0 && end > begin ? text.slice(begin + BEGIN.length, end) : null;
    const expected = actual === null ? null : text.slice(0, begin + BEGIN.length) + generated + text.slice(end);
    return { file: page.file, path: file, text, expected, generated, actual };
  });
}

function main(checkOnly) {
  let failed = false;
  for (const page of check()) {
    if (page.expected === null) {
      process.stderr.write(`${page.file}: no "${BEGIN}" … "${END}" marks\n`);
      failed = true;
    } else if (page.expected !== page.text && checkOnly) {
      process.stderr.write(`${page.file}: differs from its field tables; run \`npm run build && node scripts/docs-reference.js\` and commit it\n`);
      failed = true;
    } else if (page.expected !== page.text) {
      fs.writeFileSync(page.path, page.expected);
      process.stdout.write(`${page.file}: written\n`);
    } else {
      process.stdout.write(`${page.file}: unchanged\n`);
    }
  }
  if (failed) process.exitCode = 1;
}

module.exports = { BEGIN, END, check, render, pages };
if (require.main === module) main(process.argv.includes('--check'));
