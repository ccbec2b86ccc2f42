/** SQL of a service timestamp as answers show timestamps: UTC, `Z`, microseconds, to the millisecond the service keeps (`2026-03-01T09:30:00.123000Z`, as answerTimestamp gives a moment read in Node); NULL stays NULL. */
export const timestampSql = (column: string) => `to_char(date_trunc('milliseconds', ${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
