'use strict';
// The table's requests through the AWS SDK on DynamoDB Local: a table made
// with every setting of docs/examples/orders-settings.json and read back
// (deletion protection, the index's on-demand maximum), DeleteTable refused
// while protected; an index added to a live table and removed again; time
// to live turned on and off, read back with DescribeTimeToLive.

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { DynamoDBClient, UpdateTableCommand, DescribeTimeToLiveCommand } = require('@aws-sdk/client-dynamodb');
const { Ddbst, DdbstError, DynamoDBError } = require('ddbst');
const { Table } = require('ddbst/aws-sdk');

const root = process.env.DDBST_SOURCE_DIR || path.join(__dirname, '..', '..', '..');
const settingsFile = path.join(root, 'docs', 'examples', 'orders-settings.json');
const shopFile = path.join(root, 'examples', 'shop', 'model.json');
const skip = process.env.DDBST_ENDPOINT ? false : 'DDBST_ENDPOINT is not set';
if (skip) console.log(`table.test: skipped: ${skip}`);
const client = skip ? null : new DynamoDBClient({
  endpoint: process.env.DDBST_ENDPOINT,
  region: process.env.AWS_REGION || 'us-east-1',
});
const stamp = `${Date.now()}-${process.pid}`;

describe('table requests through the AWS SDK', { skip }, () => {
  it('creates a table with its settings, reads them back, is protected', async () => {
    const name = `orders-js-${stamp}`;
    const db = new Ddbst({ modelFile: settingsFile, table: name });
    try {
      const table = new Table(db, client);
      await table.createTable();
      const t = await table.describeTable();
      assert.equal(t.TableName, name);
      assert.equal(t.DeletionProtectionEnabled, true);
      assert.deepEqual(t.GlobalSecondaryIndexes[0].OnDemandThroughput,
                       { MaxReadRequestUnits: 200, MaxWriteRequestUnits: -1 });
      assert.deepEqual(db.updateContributorInsights('GSI1').body,
                       { TableName: name, IndexName: 'GSI1', ContributorInsightsAction: 'ENABLE' });
      assert.deepEqual(db.updateContinuousBackups().body.PointInTimeRecoverySpecification,
                       { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 14 });
      assert.throws(() => db.updateTable({ removeIndex: 'GSI1' }), (e) => {
        assert.ok(e instanceof DdbstError);
        assert.equal(e.path, 'index');
        assert.match(e.message, /the model still declares GSI1/);
        return true;
      });
      await assert.rejects(table.deleteTable(), (e) => {
        assert.ok(e instanceof DynamoDBError);
        assert.equal(e.kind, 'Validation');
        assert.match(e.dynamodb.message, /protected against deletion/);
        assert.deepEqual(e.throttlingReasons, []);
        return true;
      });
      await client.send(new UpdateTableCommand({ TableName: name, DeletionProtectionEnabled: false }));
      await table.deleteTable();
      await assert.rejects(table.describeTable(), { kind: 'ResourceNotFound' });
    } finally {
      db.close();
    }
  });

  it('adds an index to a live table and removes it again', async () => {
    const full = JSON.parse(fs.readFileSync(shopFile, 'utf8'));
    const without = JSON.parse(JSON.stringify(full));
    delete without.table.indexes.GSI1;
    for (const e of Object.values(without.entities)) {
      if (e.indexes) {
        delete e.indexes.GSI1;
        if (!Object.keys(e.indexes).length) delete e.indexes;
      }
    }
    for (const [k, p] of Object.entries(without.patterns)) if (p.index === 'GSI1') delete without.patterns[k];
    const name = `shop-idx-js-${stamp}`;
    const v1 = new Ddbst({ model: JSON.stringify(without), table: name });
    const v2 = new Ddbst({ model: JSON.stringify(full), table: name });
    try {
      const t1 = new Table(v1, client), t2 = new Table(v2, client);
      await t1.createTable();
      assert.equal((await t1.describeTable()).GlobalSecondaryIndexes, undefined);
      await t2.addIndex('GSI1');
      assert.deepEqual((await t2.describeTable()).GlobalSecondaryIndexes.map((i) => i.IndexStatus),
                       ['ACTIVE']);
      await t1.removeIndex('GSI1');
      assert.equal((await t1.describeTable()).GlobalSecondaryIndexes, undefined);
      await t1.deleteTable();
    } finally {
      v1.close();
      v2.close();
    }
  });

  it('turns time to live on and off again', async () => {
    const name = `saas-ttl-js-${stamp}`;
    const saas = new Ddbst({ modelFile: path.join(root, 'examples', 'saas', 'model.json'), table: name });
    const shop = new Ddbst({ modelFile: shopFile, table: name }); // no ttlAttribute
    const ttl = async () => (await client.send(new DescribeTimeToLiveCommand({ TableName: name })))
      .TimeToLiveDescription;
    try {
      const t = new Table(saas, client);
      await t.createTable();
      await t.send(saas.updateTimeToLive());
      assert.deepEqual(await ttl(), { TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });
      assert.throws(() => saas.updateTimeToLive('expiresAt'), { path: 'disable' });
      await t.send(shop.updateTimeToLive('expiresAt'));
      assert.deepEqual(await ttl(), { TimeToLiveStatus: 'DISABLED' });
      await t.deleteTable();
    } finally {
      saas.close();
      shop.close();
    }
  });
});
