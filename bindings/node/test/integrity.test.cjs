'use strict';
// Issue 16: what a JavaScript string holds reaches ddbst as it is, or is
// refused by the field it came in. A string cut inside an emoji
// ('Café 😀'.slice(0, 6)) ends in a lone surrogate, which JSON.stringify
// writes as the escape \ud83d: ddbst refuses it, where YAJL alone would read
// it as '?' (two ids, one key) or join it with the escape after it.

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Ddbst, DdbstError } = require('ddbst');

const root = process.env.DDBST_SOURCE_DIR || path.join(__dirname, '..', '..', '..');
const modelFile = path.join(root, 'examples', 'saas', 'model.json');

const HIGH_ALONE = 'is the high half of a surrogate pair, with no low half (\\udc00-\\udfff) after it';
const LOW_ALONE = 'is the low half of a surrogate pair, with no high half (\\ud800-\\udbff) before it';

describe('ddbst: text that is not text is refused, never rewritten', () => {
  let db;
  before(() => { db = new Ddbst({ modelFile }); });
  after(() => db.close());

  it('a string cut inside an emoji', () => {
    const cut = 'Café 😀'.slice(0, 6);
    assert.equal(cut.length, 6);
    assert.throws(() => db.keys('Organisation', { orgId: cut }), (e) => {
      assert.ok(e instanceof DdbstError);
      assert.equal(e.codeName, 'ESYNTAX');
      assert.equal(e.path, 'values.orgId');
      assert.equal(e.message, `\\ud83d ${HIGH_ALONE}`);
      return true;
    });
  });

  it('a high half before another character, and a low half alone', () => {
    assert.throws(() => db.keys('Organisation', { orgId: 'x\ud800A' }), {
      codeName: 'ESYNTAX', path: 'values.orgId', message: `\\ud800 ${HIGH_ALONE}`,
    });
    assert.throws(() => db.keys('Organisation', { orgId: '\udc00' }), {
      codeName: 'ESYNTAX', path: 'values.orgId', message: `\\udc00 ${LOW_ALONE}`,
    });
    // in a name of a map value, the path is the map's
    assert.throws(() => db.keys('Event', {
      projectId: 'p1', ts: '2026-03-14T09:00:00Z', payload: { ['k\ud800']: 1 },
    }), { codeName: 'ESYNTAX', path: 'values.payload', message: `a member name: \\ud800 ${HIGH_ALONE}` });
  });

  it('whole characters are kept exactly', () => {
    const id = 'Café 😀';
    assert.deepEqual(db.keys('Organisation', { orgId: id }).keys, {
      PK: `ORG#${id}`, SK: `ORG#${id}`, _type: 'Organisation',
    });
  });
});
