/** A two-sided interval [low, high]. */
export interface Interval {
  low: number;
  high: number;
}

/** Options of the one-proportion intervals. */
export interface ProportionIntervalOptions {
  /** Confidence level in (0, 1); default 0.95. */
  level?: number;
}
