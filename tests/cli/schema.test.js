// The model file's JSON Schema (schema/ddbst.schema.json, `ddbst schema`)
// checked with Ajv: every model this repository ships validates, and the
// mistakes an editor should flag as you type are flagged. The loader has
// the last word (docs/model.md); the schema must never refuse what it takes.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const Ajv = require('ajv');

const root = path.join(__dirname, '..', '..');
const schema = JSON.parse(
    fs.readFileSync(path.join(root, 'schema', 'ddbst.schema.json'), 'utf8'));
// strictRequired off: "then": {"required": ["values"]} names a property
// declared beside it, which strict mode reads as a mistake
const ajv = new Ajv({strict: true, strictRequired: false,
                     allowUnionTypes: true, allErrors: true});
const validate = ajv.compile(schema);

const read = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const filesIn = (dir, ext) =>
    fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith(ext))
        .map((f) => path.join(root, dir, f));

test('the example models validate', () => {
  for (const name of ['saas', 'blog', 'games', 'orgchart', 'mailbox']) {
    const ok = validate(read(path.join(root, 'examples', name, 'model.json')));
    assert.ok(ok, `${name}: ${JSON.stringify(validate.errors)}`);
  }
});

test('every model the loader takes validates', () => {
  const files = [
    ...filesIn('tests/lint', '.json'),
    ...filesIn('tests/integration/models', '.json'),
    ...filesIn('docs/examples', '.json'),
  ].filter((f) => !path.basename(f).startsWith('broken') &&
                  !path.basename(f).startsWith('syn'))
   // docs/examples holds answers and events beside the models
   .filter((f) => { try { return 'ddbst' in read(f); } catch { return false; } });
  assert.ok(files.length > 20);
  for (const f of files) {
    assert.ok(validate(read(f)), `${f}: ${JSON.stringify(validate.errors)}`);
  }
});

test('"$schema" in a model validates', () => {
  const m = read(path.join(root, 'examples', 'saas', 'model.json'));
  m.$schema = './ddbst.schema.json';
  assert.ok(validate(m), JSON.stringify(validate.errors));
});

// One mistake each, and where the schema says it is.
const saas = () => read(path.join(root, 'examples', 'saas', 'model.json'));
const cases = [
  ['a misspelt field', (m) => { m.entities.User.atributes = {}; },
   '/entities/User', 'additionalProperties'],
  ['an unknown type', (m) => { m.entities.User.attributes.role = 'strng'; },
   '/entities/User/attributes/role', 'oneOf'],
  ['an enum without values',
   (m) => { m.entities.User.attributes.role = {type: 'enum'}; },
   '/entities/User/attributes/role', 'oneOf'],
  ['a bad order', (m) => { m.patterns.listProjects.order = 'descending'; },
   '/patterns/listProjects/order', 'enum'],
  ['a get and a query at once',
   (m) => { m.patterns.getUser.query = 'User'; },
   '/patterns/getUser', 'oneOf'],
  ['the wrong format version', (m) => { m.ddbst = 2; }, '/ddbst', 'const'],
  ['a bad stream view', (m) => { m.table.stream = 'ALL'; },
   '/table/stream', 'enum'],
  ['an index name too short',
   (m) => { m.table.indexes.G1 = {partitionKey: 'G1PK'}; },
   '/table/indexes', 'propertyNames'],
  ['a width out of range',
   (m) => { m.entities.User.attributes.n = {type: 'integer', width: 20}; },
   '/entities/User/attributes/n', 'oneOf'],
  ['a delimiter the loader refuses', (m) => { m.table.delimiter = ':'; },
   '/table/delimiter', 'pattern'],
  ['a recovery period over 35 days',
   (m) => { m.table.pointInTimeRecovery = {recoveryPeriodInDays: 36}; },
   '/table/pointInTimeRecovery/recoveryPeriodInDays', 'maximum'],
  ['an unknown table class', (m) => { m.table.tableClass = 'IA'; },
   '/table/tableClass', 'enum'],
  ['a tag key of AWS\'s own', (m) => { m.table.tags = {'aws:x': 'y'}; },
   '/table/tags', 'pattern'],
  ['an empty warm throughput', (m) => { m.table.warmThroughput = {}; },
   '/table/warmThroughput', 'minProperties'],
  ['a misspelt index setting',
   (m) => { m.table.indexes.GSI1.onDemand = {maxReadRequestUnits: 5}; },
   '/table/indexes/GSI1', 'additionalProperties'],
  ['a stream ARN for a table name',
   (m) => { m.table.name = 'arn:aws:dynamodb:eu-west-1:123456789012:table/t-1/stream/x'; },
   '/table/name', 'oneOf'],
];

test('every table setting, and a table ARN, validate', () => {
  const m = saas();
  Object.assign(m.table, {
    name: 'arn:aws-cn:dynamodb:cn-north-1:123456789012:table/saas-api-dev',
    onDemandThroughput: {maxReadRequestUnits: 100},
    warmThroughput: {readUnitsPerSecond: 15000, writeUnitsPerSecond: 5000},
    deletionProtection: true,
    pointInTimeRecovery: {recoveryPeriodInDays: 7},
    tableClass: 'STANDARD_INFREQUENT_ACCESS',
    contributorInsights: false,
    tags: {team: 'billing', 'cost centre': '42', 'équipe': 'é'},
    resourcePolicy: {Version: '2012-10-17', Statement: []},
  });
  Object.assign(m.table.indexes.GSI1, {
    onDemandThroughput: {maxWriteRequestUnits: 10},
    warmThroughput: {readUnitsPerSecond: 12000},
    contributorInsights: true,
  });
  assert.ok(validate(m), JSON.stringify(validate.errors));
});
for (const [name, edit, where, keyword] of cases) {
  test(`refused: ${name}`, () => {
    const m = saas();
    edit(m);
    assert.strictEqual(validate(m), false);
    assert.ok(validate.errors.some((e) => e.instancePath === where &&
                                          e.keyword === keyword),
              JSON.stringify(validate.errors));
  });
}
