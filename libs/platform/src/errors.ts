/** The one error shape every endpoint answers with: `{"error": {"code", "message"}}`. */
export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** An error whose code and status are part of the API contract. Thrown by handlers, mapped by the HTTP layer. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) } };
  }
}

export const invalidRequest = (message: string, details?: unknown) => new AppError(400, 'invalid_request', message, details);
export const unauthorized = (message = 'Missing or invalid credentials') => new AppError(401, 'unauthorized', message);
export const forbidden = (message = 'Not allowed') => new AppError(403, 'forbidden', message);
export const notFound = (message = 'Resource does not exist') => new AppError(404, 'not_found', message);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const unprocessable = (message: string, details?: unknown) => new AppError(422, 'validation_error', message, details);
export const serviceUnavailable = (message: string) => new AppError(503, 'unavailable', message);
