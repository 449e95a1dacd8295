import { ApiError } from '../../errors.js';

/** A `date_from`/`date_to` that is neither a relative date nor an ISO date, or an unknown timezone. */
export class DateRangeError extends ApiError {
  constructor(detail: string, attr: string | null = null) {
    super(400, 'validation_error', 'invalid_input', detail, attr);
    this.name = 'DateRangeError';
  }
}
