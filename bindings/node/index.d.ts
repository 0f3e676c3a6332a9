// Types of the ddbst package. Without a model type every entity takes and
// gives `Values`; `ddbst generate typescript MODEL` writes a model type
// (entities, their value types, patterns and the values each requires) to
// give as Ddbst<Model>, so that a misspelt attribute, a missing partition
// value or a wrong value type fails `tsc --strict`.

/** How a session reads numbers back: 'number' (the default) refuses, with a
 * RangeError, any number a double would not hold exactly; 'string' gives
 * every number's text; 'bigint' gives integers as bigint and other numbers'
 * text. */
export type NumberMode = 'number' | 'string' | 'bigint';

/** A number as a session of mode N gives it back. */
export type Num<N extends NumberMode> =
  N extends 'string' ? string : N extends 'bigint' ? bigint | string : number;

/** A value going in: strings for text of any type (a timestamp's ISO-8601,
 * a number's digits), number or bigint for numbers, boolean, Uint8Array for
 * binary, Set (or an array) for sets, Date for timestamps, arrays and plain
 * objects for lists and maps; null leaves the attribute alone. */
export type Value =
  | string | number | bigint | boolean | null | Uint8Array | Date | NumberText
  | Set<string> | Set<number | bigint | string> | Value[] | { [name: string]: Value };

/** An item's values by attribute name. */
export type Values = { [attribute: string]: Value };

/** A value read back: numbers by the session's mode, binary as Uint8Array,
 * sets as Set, timestamps as their canonical UTC text. */
export type ReadValue<N extends NumberMode = 'number'> =
  | string | Num<N> | boolean | null | Uint8Array | Set<string> | Set<Num<N>>
  | ReadValue<N>[] | { [name: string]: ReadValue<N> };
export type ReadValues<N extends NumberMode = 'number'> = { [attribute: string]: ReadValue<N> };

/** One entity as a model type describes it. */
export interface EntityShape {
  /** the values a put or create takes */
  input: object;
  /** the primary key's facets: what get, delete and update need */
  key: object;
  /** an item read back, in each number mode */
  item: { number: object; string: object; bigint: object };
}

/** One access pattern: the values a query takes and the entities it reads. */
export interface PatternShape {
  values: object;
  entities: string;
}

/** A model type, as `ddbst generate typescript` writes one. */
export interface ModelShape {
  entities: { [entity: string]: EntityShape };
  patterns: { [pattern: string]: PatternShape };
}

/** Any model: every entity and pattern name, every value. */
export interface AnyModel extends ModelShape {
  entities: {
    [entity: string]: {
      input: Values; key: Values;
      item: { number: ReadValues<'number'>; string: ReadValues<'string'>; bigint: ReadValues<'bigint'> };
    };
  };
  patterns: { [pattern: string]: { values: Values; entities: string } };
}

export type EntityName<M extends ModelShape> = keyof M['entities'] & string;
export type PatternName<M extends ModelShape> = keyof M['patterns'] & string;
export type Input<M extends ModelShape, E extends EntityName<M>> = M['entities'][E]['input'];
export type Key<M extends ModelShape, E extends EntityName<M>> = M['entities'][E]['key'];
export type Item<M extends ModelShape, E extends EntityName<M>, N extends NumberMode> =
  M['entities'][E]['item'][N];

/** An item of a page: its entity and its values. */
export type PageItem<M extends ModelShape, N extends NumberMode, E extends EntityName<M> = EntityName<M>> =
  { [K in E]: { entity: K; item: Item<M, K, N>; undeclared?: ReadValues<N>;
                /** a KEYS_ONLY or INCLUDE index's page: what it leaves out */
                notProjected?: string[] } }[E];

/** The items a pattern's query gives back. */
export type PatternItem<M extends ModelShape, P extends PatternName<M>, N extends NumberMode> =
  PageItem<M, N, M['patterns'][P]['entities'] & EntityName<M>>;

export type Operation =
  | 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'BatchGetItem'
  | 'BatchWriteItem' | 'TransactWriteItems' | 'TransactGetItems' | 'CreateTable' | 'Scan';

/** A request: send `body` with the header X-Amz-Target: `target`. */
export interface Request {
  operation: Operation;
  target: string;
  body: { [member: string]: unknown };
}

/** A prepared operation's request: the body as the JSON text ddbst wrote,
 * which ddbst/aws-sdk's send passes to the SDK as it is. */
export interface TextRequest {
  operation: Operation;
  target: string;
  text: string;
}

/** What each prepared op takes when prepared (fixed for every call). */
export interface PrepareOptions {
  /** get, query */
  consistent?: boolean;
  /** query: 'COUNT' (the number of items) or 'ALL' */
  select?: 'COUNT' | 'ALL';
  /** delete */
  ifExists?: boolean;
  /** put, create, delete */
  return?: 'NONE' | 'ALL_OLD';
  returnOnFailure?: boolean;
}

/** What a prepared update takes when prepared: upsert (also when the item
 * is missing), any ReturnValues, returnOnFailure. */
export interface PrepareUpdateOptions {
  upsert?: boolean;
  return?: ReturnValues;
  returnOnFailure?: boolean;
}

/** Per call of a prepared get, put, create, delete or query. */
export interface PreparedCallOptions { limit?: number; cursor?: string; now?: number }

/** Per call of a prepared update: the values are SET; these REMOVE, ADD
 * (a number's delta, a string set's elements), append to lists and expect
 * a version, as db.update's options do. Lists appended, number sets and an
 * attribute given twice go through the JSON entry (the same body). */
export interface PreparedUpdateOptions {
  now?: number;
  remove?: string[];
  add?: Values;
  append?: Values;
  expectVersion?: number;
}

/** One operation prepared once (db.prepare), called without JSON: its
 * values go to C as flat text, its body comes back as text. Values of
 * lists, maps and sets, and every failure, go through the JSON entry
 * (the same bodies, the same errors). */
export interface Prepared<V = Values, O = PreparedCallOptions> {
  readonly op: 'get' | 'put' | 'create' | 'update' | 'delete' | 'query';
  /** the entity or pattern prepared */
  readonly name: string;
  /** the entity whose attributes the values are */
  readonly entity: string;
  /** the operation of the last body (a put of an entity with unique
   * attributes is a TransactWriteItems) */
  readonly operation: Operation;
  /** The request body's JSON text. Per call: a query's limit, cursor and
   * now; a put's or create's now; an update's PreparedUpdateOptions. */
  text(values: V, options?: O): string;
  /** {operation, target, text}: what ddbst/aws-sdk's send takes. */
  request(values: V, options?: O): TextRequest;
  /** Frees it (its session's close does too). */
  close(): void;
}

export interface Written<I> extends Request {
  /** the values written: defaults, generated ids and timestamps filled */
  item: I;
}

export interface Page<I> {
  /** a TransactGetItems slot that found nothing is null */
  items: (I | null)[];
  count: number;
  hasMore: boolean;
  /** a select: 'COUNT' answer's Count and ScannedCount */
  matched?: number;
  scanned?: number;
  /** the next page's cursor, sealed */
  cursor?: string;
  /** a batch's unprocessed items, to send again */
  followup?: Request;
  /** queryFull: indices of items deleted since the query */
  missing?: number[];
}

/** What a scan reads (docs/scans.md); a scan's page is read with the
 * same options as its request, its cursor being bound to them. */
export interface ScanFields {
  /** an index of the model (default: the table) */
  index?: string;
  /** only items of these entities */
  entities?: string[];
  /** one entity's filter (give it alone in entities): text or JSON form */
  filter?: string | object;
  params?: Values;
  project?: string[];
  /** a parallel scan: this segment of totalSegments */
  segment?: number;
  totalSegments?: number;
  now?: number;
}
export interface ScanOptions extends ScanFields {
  limit?: number;
  /** the page before's cursor */
  cursor?: string;
  consistent?: boolean;
  select?: 'COUNT' | 'ALL';
}

/** An item of a scan's page: of no entity of the model (a guard, a foreign
 * item), entity is null and item holds every attribute as stored. */
export type ScanItem<M extends ModelShape, N extends NumberMode> =
  PageItem<M, N> | { entity: null; item: { [attribute: string]: unknown } };

/** The orphan-guard audit: the next request to send, or its verdict. */
export type GuardAudit =
  | { request: Request }
  | { guards: number; orphans: { kind: string; entity: string; unique: string; guard: string; holder: { [attribute: string]: string } }[] };

/** A page's hydration: requests, and given the answers, the items. */
export interface Hydration<I> {
  requests: Request[];
  /** the full items in the page's order; null: not there any more */
  items?: (I | null)[];
  /** indices of the page's items deleted since the query */
  missing?: number[];
  /** indices not answered yet, or unprocessed */
  pending?: number[];
}

export type Condition = { [facet: string]:
  | { begins: Value } | { gt: Value } | { gte: Value } | { lt: Value } | { lte: Value }
  | { between: [Value, Value] }
  /** a lower and an upper bound, each by its own rule */
  | ({ gt: Value } | { gte: Value }) & ({ lt: Value } | { lte: Value }) };

export interface QueryOptions {
  condition?: Condition;
  limit?: number;
  cursor?: string;
  consistent?: boolean;
  project?: string[];
  now?: number;
  /** 'COUNT': the number of matching items (the page's matched), not the items */
  select?: 'COUNT' | 'ALL';
}

/** What a write answers with (ReturnValues); read it with page(..., { operation, entity }) */
export type ReturnValues = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
/** returnOnFailure: a failed condition's answer holds the item, and explain() names what it held */
export interface ReturnOptions { return?: ReturnValues; returnOnFailure?: boolean }

export interface GetOptions { consistent?: boolean; project?: string[] }
export interface PutOptions extends ReturnOptions { now?: number; expectVersion?: number }
export interface UpdateOptions<S = Values> extends ReturnOptions {
  set?: Partial<S>;
  remove?: string[];
  add?: Values;
  append?: Values;
  previous?: Partial<S>;
  expectVersion?: number;
  upsert?: boolean;
  now?: number;
}
export interface DeleteOptions extends ReturnOptions { expectVersion?: number; ifExists?: boolean }

/** One operation of a batch or a transaction. */
export type ItemOp<M extends ModelShape = AnyModel> = {
  [E in EntityName<M>]:
    | { op: 'put' | 'create'; entity: E; values: Input<M, E>; expectVersion?: number }
    | { op: 'get' | 'check'; entity: E; values: Key<M, E>; expectVersion?: number }
    | { op: 'delete'; entity: E; values: Key<M, E> & Partial<Input<M, E>>; expectVersion?: number; ifExists?: boolean }
    | ({ op: 'update'; entity: E; values: Key<M, E> & Partial<Input<M, E>> } & UpdateOptions<Input<M, E>>)
}[EntityName<M>];

export interface SessionOptions<N extends NumberMode> {
  modelFile?: string;
  model?: string | object;
  table?: string;
  cursorKeys?: string;
  cursorMaxAge?: number;
  numbers?: N;
  library?: string;
}

export interface Explanation {
  dynamodb: DynamoDBSays;
  kind: string;
  explanation: string;
  failures?: { index: number; kind: string; entity?: string; unique?: string }[];
}

export interface DynamoDBSays {
  type: string;
  kind: string;
  message: string;
  retryable: boolean;
  reasons: { code: string; kind: string; message: string }[];
  /** a throttling error's ThrottlingReasons, when DynamoDB gives them */
  throttlingReasons?: { reason: string; resource: string }[];
}

export class Ddbst<M extends ModelShape = AnyModel, N extends NumberMode = 'number'> {
  constructor(options: SessionOptions<N>);
  readonly numbers: N;
  /** each entity's attributes and their types as the model spells them */
  readonly types: { [entity: string]: { [attribute: string]: string } };
  close(): void;
  /** any request of the JSON entry, its answer as is */
  call(request: { op: string; [field: string]: unknown }): { [member: string]: unknown };
  callText(request: { op: string; [field: string]: unknown }): string;
  /** One operation prepared for calls without JSON: get, put, create,
   * update, delete of an entity, or query of a pattern. */
  prepare<E extends EntityName<M>>(op: 'put' | 'create', entity: E, options?: PrepareOptions): Prepared<Input<M, E>>;
  prepare<E extends EntityName<M>>(op: 'get' | 'delete', entity: E, options?: PrepareOptions): Prepared<Key<M, E>>;
  prepare<E extends EntityName<M>>(op: 'update', entity: E, options?: PrepareUpdateOptions):
    Prepared<Key<M, E> & Partial<Input<M, E>>, PreparedUpdateOptions>;
  prepare<P extends PatternName<M>>(op: 'query', pattern: P, options?: PrepareOptions):
    Prepared<M['patterns'][P]['values']>;

  check(): { ok: boolean; table: string; entities: number; patterns: number };
  version(): string;
  patterns(): { [pattern: string]: { [field: string]: unknown } };
  createTable(): Request;
  describeTable(): Request;
  deleteTable(): Request;
  /** one of the two: the model's index to create, or one it no longer declares */
  updateTable(options: { addIndex?: string; removeIndex?: string }): Request;
  updateContinuousBackups(): Request;
  updateContributorInsights(index?: string): Request;
  /** expiry on the model's ttlAttribute, or off on `disable`, which the model no longer declares */
  updateTimeToLive(disable?: string): Request;
  cloudformation(streamFilters?: string[]): { [member: string]: unknown };
  lint(): { findings: { severity: 'error' | 'warning' | 'note'; rule: string; path: string; message: string }[]; errors: number };
  doc(): string;

  keys<E extends EntityName<M>>(entity: E, values: Input<M, E>, options?: { now?: number }):
    { keys: { [attribute: string]: string }; item: Item<M, E, N> };
  itemSize<E extends EntityName<M>>(entity: E, values: Input<M, E>, options?: { now?: number }):
    { bytes: number; limit: number };
  parse(pk: string, sk?: string, options?: { index?: string }): PageItem<M, N> extends infer P
    ? P extends { entity: infer E; item: infer I } ? { entity: E; values: I } : never : never;

  get<E extends EntityName<M>>(entity: E, values: Key<M, E>, options?: GetOptions): Request;
  put<E extends EntityName<M>>(entity: E, values: Input<M, E>, options?: PutOptions): Written<Item<M, E, N>>;
  create<E extends EntityName<M>>(entity: E, values: Input<M, E>, options?: PutOptions): Written<Item<M, E, N>>;
  update<E extends EntityName<M>>(entity: E, values: Key<M, E> & Partial<Input<M, E>>,
                                  options?: UpdateOptions<Input<M, E>>): Request;
  delete<E extends EntityName<M>>(entity: E, values: Key<M, E> & Partial<Input<M, E>>,
                                  options?: DeleteOptions): Request;
  query<P extends PatternName<M>>(pattern: P, values: M['patterns'][P]['values'], options?: QueryOptions): Request;
  batchGet(items: ItemOp<M>[], options?: { consistent?: boolean }): { requests: Request[] };
  batchWrite(items: ItemOp<M>[], options?: { now?: number }): { requests: Request[] };
  transact(items: ItemOp<M>[], options?: { token?: string; now?: number; returnOnFailure?: boolean }): Request;

  /** A Scan of the table or an index (docs/scans.md). */
  scan(options?: ScanOptions): Request;
  /** A Scan's answer read back, given the scan's own fields. */
  scanPage(response: unknown, options?: ScanFields): Page<ScanItem<M, N>>;
  /** The orphan-guard audit of Scan answers, given the holders read so far. */
  guards(pages: unknown[], holders?: unknown[]): GuardAudit;

  /** DynamoDB's answer (text, the SDK's output object, or its exception)
   * read back; with the query's pattern and values, the next page's
   * sealed cursor too. */
  page<P extends PatternName<M>>(response: unknown,
    options: { pattern: P; values: M['patterns'][P]['values']; operation?: 'Query'; now?: number }):
    Page<PatternItem<M, P, N>>;
  page(response: unknown, options?: { operation?: Operation; now?: number; entity?: EntityName<M> }): Page<PageItem<M, N>>;
  /** A Query answer of a KEYS_ONLY or INCLUDE index: the BatchGetItem
   * requests of its full items; given every answer to each request (and
   * to its follow-ups), the full items in the page's order. */
  hydrate(response: unknown, options?: { attributes?: string[]; consistent?: boolean;
                                         answers?: { chunk: number; response: unknown }[] }):
    Hydration<PageItem<M, N>>;
  explain(response: unknown, request: { op: string; [field: string]: unknown }): Explanation;
  stream(event: unknown, failed?: number[]): { records: { [member: string]: unknown }[]; failures?: unknown };
}

/** A number given as its text, written as a JSON number: for exact
 * numbers inside maps and lists, where a string stays a string. (Strings in
 * a number set attribute are read as numbers' text already.) */
export class NumberText {
  constructor(text: string);
  readonly text: string;
}

/** A failure reported by ddbst. */
export class DdbstError extends Error {
  /** the C API's negative DDBST_E* code */
  code: number;
  /** its name: 'EVALUE', 'ECURSOR', ... */
  codeName: string;
  /** what was wrong: 'facet orgId', 'cursor', 'values.orgId', ... */
  path: string;
  offset?: number;
  line?: number;
  column?: number;
  /** every problem of a model that does not load */
  errors?: { code: number; name: string; path: string; message: string }[];
}

/** DynamoDB refused a request. */
export class DynamoDBError extends DdbstError {
  dynamodb: DynamoDBSays;
  kind: string;
  retryable: boolean;
  throttlingReasons: { reason: string; resource: string }[];
  /** a refused write sent through ddbst/aws-sdk: why, in the model's words */
  explanation?: string;
  /** its kind: 'unique', 'exists', 'version', 'missing', ... */
  reason?: string;
  failures?: Explanation['failures'];
  type?: string;
  cause?: unknown;
}
