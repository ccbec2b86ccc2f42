/** `POST /api/data/query/`: `{datatype, match, update}` applied to every matching record, as one run. */
export class RunDataQueryCommand {
  constructor(
    readonly body: unknown,
    readonly caller: string,
    readonly idempotencyKey?: string,
    readonly requestId?: string,
    readonly tokenId?: string,
  ) {}
}
