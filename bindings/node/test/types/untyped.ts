// tsc --strict on a program that uses the package without a model type:
// the declarations resolve (no TS7016) through the package's exports, for
// both entry points, and what they give is typed, not `any`.
import { Ddbst, DdbstError, DynamoDBError, NumberText, type Request, type Page, type PageItem, type AnyModel } from 'ddbst';
import { Table, type Client } from 'ddbst/aws-sdk';

export async function listOrders(client: Client, cursor?: string): Promise<Page<PageItem<AnyModel, 'bigint'>>> {
  const db = new Ddbst({ modelFile: 'examples/shop/model.json', numbers: 'bigint' });
  const request: Request = db.query('listOrders', { customerId: 'c1' }, { limit: 25, cursor });
  const target: string = request.target;
  void target;
  const table = new Table(db, client);
  const order = await table.put('Order', { customerId: 'c1', total: new NumberText('19.99'), quantity: 3n,
                                           receipt: new Uint8Array([1, 2]), tags: new Set(['a']) });
  const quantity = order.quantity;
  void quantity;
  try {
    return await table.query('listOrders', { customerId: 'c1' }, { cursor });
  } catch (e) {
    if (e instanceof DynamoDBError) throw new Error(`${e.kind}: ${e.explanation ?? e.message}`);
    if (e instanceof DdbstError) throw new Error(`${e.codeName} ${e.path}`);
    throw e;
  }
}

// A scan's pages: items of no entity have entity null; the audit answers
// with a request or its verdict.
export async function scanUsers(client: Client): Promise<number> {
  const db = new Ddbst({ modelFile: 'examples/saas/model.json' });
  const table = new Table(db, client);
  const request: Request = db.scan({ entities: ['User'], segment: 0, totalSegments: 2, limit: 100 });
  void request;
  let n = 0;
  for await (const entry of table.scanAll({ entities: ['User'] })) {
    if (entry.entity !== null) n++;
  }
  const audit = db.guards([]);
  if ('request' in audit) void audit.request.target;
  else n += audit.orphans.length;
  const { orphans } = await table.orphanGuards({ limit: 10 });
  return n + orphans.length;
}

// A prepared put and query: the body's text, sent as it is.
export async function prepared(client: Client, cursor?: string): Promise<string> {
  const db = new Ddbst({ modelFile: 'examples/saas/model.json' });
  const table = new Table(db, client);
  const put = db.prepare('put', 'Project');
  const text: string = put.text({ orgId: 'acme', projectId: 'p-1', name: 'Site' }, { now: 1773478800000000 });
  await table.send(put.request({ orgId: 'acme', projectId: 'p-2' }));
  const query = db.prepare('query', 'listProjects', { consistent: true });
  await table.send(query.request({ orgId: 'acme' }, { limit: 25, cursor }));
  query.close();
  const update = db.prepare('update', 'Project', { upsert: true, return: 'UPDATED_NEW' });
  await table.send(update.request({ orgId: 'acme', projectId: 'p-2', status: 'archived' },
                                  { remove: ['name'], now: 1773478800000000 }));
  return text + put.operation + update.operation;
}
