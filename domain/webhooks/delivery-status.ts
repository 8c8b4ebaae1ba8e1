// Where a delivery stands: waiting for its attempt, delivered, failed and to be retried, or given up on.
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead'] as const;
