declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    duration: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    workers?: number;
    requests?: unknown[];
    /** Requests per second over all connections. */
    overallRate?: number;
    /** Seconds before a request counts as timed out (default 10). */
    timeout?: number;
  }
  /** The run, which also reports each answer as it arrives. */
  interface Instance extends Promise<Result> {
    on(event: 'response', cb: (client: unknown, status: number, bytes: number, ms: number) => void): this;
  }
  function autocannon(opts: Options): Instance;
  export default autocannon;
}
