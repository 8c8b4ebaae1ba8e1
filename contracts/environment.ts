// The two worlds a key, a project's data and a provider endpoint belong to; they never cross.
export type Environment = 'live' | 'test';
