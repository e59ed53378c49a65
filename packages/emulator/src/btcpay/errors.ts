/** A control or API call that cannot apply as asked; `status` is the HTTP status to answer with. */
export class BtcpayError extends Error {
  constructor(
    readonly status: 404 | 409 | 422,
    message: string,
  ) {
    super(message)
  }
}
