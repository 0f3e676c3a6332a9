// Types of ddbst/aws-sdk: a Ddbst session and a DynamoDBClient of
// @aws-sdk/client-dynamodb.
import type {
  AnyModel, Ddbst, EntityName, GetOptions, Input, Item, ItemOp, Key, ModelShape, NumberMode,
  Page, PageItem, PatternItem, PatternName, PutOptions, QueryOptions, Request, UpdateOptions,
  DeleteOptions, Hydration, ScanItem, ScanOptions, TextRequest,
} from './index';

/** What the adapter needs of a DynamoDBClient. */
export interface Client {
  send(command: object): Promise<unknown>;
}

/** Sends one ddbst request; the SDK's output, or its exception. A prepared
 * operation's request (text) goes with its body as ddbst wrote it. */
export function send(client: Client, request: Request | TextRequest): Promise<unknown>;
/** The SDK command object of a ddbst request (binary as Uint8Array). */
export function command(request: Request | TextRequest): object;
export function bodyToSdk(body: unknown): unknown;

export class Table<M extends ModelShape = AnyModel, N extends NumberMode = 'number'> {
  constructor(db: Ddbst<M, N>, client: Client, options?: { unprocessedAttempts?: number });
  readonly db: Ddbst<M, N>;
  readonly client: Client;
  send(request: Request | TextRequest, write?: { op: string; [field: string]: unknown }): Promise<unknown>;
  createTable(options?: { wait?: boolean }): Promise<void>;
  deleteTable(): Promise<void>;
  describeTable(): Promise<{ [member: string]: unknown }>;
  addIndex(index: string, options?: { wait?: boolean }): Promise<void>;
  removeIndex(index: string, options?: { wait?: boolean }): Promise<void>;
  get<E extends EntityName<M>>(entity: E, values: Key<M, E>, options?: GetOptions): Promise<Item<M, E, N> | null>;
  put<E extends EntityName<M>>(entity: E, values: Input<M, E>, options?: PutOptions): Promise<Item<M, E, N>>;
  create<E extends EntityName<M>>(entity: E, values: Input<M, E>, options?: PutOptions): Promise<Item<M, E, N>>;
  update<E extends EntityName<M>>(entity: E, values: Key<M, E> & Partial<Input<M, E>>,
                                  options?: UpdateOptions<Input<M, E>>): Promise<void>;
  delete<E extends EntityName<M>>(entity: E, values: Key<M, E> & Partial<Input<M, E>>,
                                  options?: DeleteOptions): Promise<void>;
  query<P extends PatternName<M>>(pattern: P, values: M['patterns'][P]['values'], options?: QueryOptions):
    Promise<Page<PatternItem<M, P, N>>>;
  queryAll<P extends PatternName<M>>(pattern: P, values: M['patterns'][P]['values'],
                                     options?: Omit<QueryOptions, 'cursor'>): AsyncGenerator<PatternItem<M, P, N>>;
  /** The full items of a KEYS_ONLY or INCLUDE index's page, from its Query answer. */
  hydrate(response: unknown, options?: { attributes?: string[]; consistent?: boolean }):
    Promise<Hydration<PageItem<M, N>>>;
  /** One page of such an index with its full items, in its order. */
  queryFull<P extends PatternName<M>>(pattern: P, values: M['patterns'][P]['values'],
                                      options?: QueryOptions & { attributes?: string[] }):
    Promise<Page<PatternItem<M, P, N>>>;
  /** One page of a Scan; its cursor gives the next page of the same scan. */
  scan(options?: ScanOptions): Promise<Page<ScanItem<M, N>>>;
  /** Every item of a scan (or of one segment of it), page after page. */
  scanAll(options?: Omit<ScanOptions, 'cursor'>): AsyncGenerator<ScanItem<M, N>>;
  /** The unique guards whose holder is gone or holds another value. */
  orphanGuards(options?: { limit?: number }): Promise<{ guards: number;
    orphans: { kind: string; entity: string; unique: string; guard: string; holder: { [attribute: string]: string } }[] }>;
  batchGet(items: ItemOp<M>[], options?: { consistent?: boolean }): Promise<PageItem<M, N>[]>;
  batchWrite(items: ItemOp<M>[], options?: { now?: number }): Promise<void>;
  transactWrite(items: ItemOp<M>[], options?: { token?: string; now?: number }): Promise<void>;
  transactGet(items: ItemOp<M>[]): Promise<(PageItem<M, N> | null)[]>;
}
