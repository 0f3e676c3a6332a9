// The package from an ES module: named imports of both entry points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Ddbst, DdbstError } from 'ddbst';
import { Table, bodyToSdk } from 'ddbst/aws-sdk';

const root = process.env.DDBST_SOURCE_DIR;

test('import { Ddbst } from "ddbst" in an ES module', () => {
  const db = new Ddbst({ modelFile: path.join(root, 'examples', 'saas', 'model.json') });
  try {
    assert.deepEqual(db.keys('User', { orgId: '123', userId: '9', email: 'Ann@Example.com' }).keys,
                     { PK: 'ORG#123', SK: 'USER#9', GSI1PK: 'EMAIL#ann@example.com', _type: 'User' });
    assert.throws(() => db.keys('User', { orgId: '1#USER#admin', userId: '9' }), DdbstError);
  } finally {
    db.close();
  }
  assert.equal(typeof Table, 'function');
  assert.deepEqual(bodyToSdk({ Item: { b: { B: 'AP8=' } } }), { Item: { b: { B: new Uint8Array([0, 255]) } } });
});
