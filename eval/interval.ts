/** A two-sided interval [low, high]. */
export interface Interval {
  low: number;
  high: number;
}
