import seedrandom from 'seedrandom';

/**
 * The project's one seeded random source (seedrandom's Alea), passed in explicitly: nothing calls
 * `Math.random`. `fork(label)` derives an independent stream keyed `parentKey/label` whatever the
 * parent has drawn, so two computations forking one label share their numbers (common random numbers).
 *
 * @example
 *   const rng = new Rng(7);
 *   const rollouts = rng.fork('rollout');
 *   rollouts.int(6); // an integer in [0, 6)
 */
export class Rng {
  readonly key: string;
  private readonly source: () => number;

  constructor(seed: number | string) {
    this.key = String(seed);
    this.source = seedrandom.alea(this.key);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.source();
  }

  /** An integer in [0, n). Throws on n < 1 or a non-integer n. */
  int(n: number): number {
    if (!Number.isInteger(n) || n < 1)
      throw new RangeError(`Rng.int: n must be a positive integer, got ${n}`);
    return Math.floor(this.source() * n);
  }

  /** A uniformly chosen element. Throws on an empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick: empty array');
    return items[this.int(items.length)] as T;
  }

  /** A standard normal draw (Box-Muller). */
  normal(): number {
    let u = 0;
    while (u === 0) u = this.source();
    const v = this.source();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** The items in a uniformly random order (Fisher-Yates, from the last position down); a new array. */
  shuffled<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i -= 1) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** A fresh 32-bit integer, for seeding something outside this class. */
  uint32(): number {
    return Math.floor(this.source() * 0x100000000) >>> 0;
  }

  /** An independent stream named by `label`; depends only on this stream's key. */
  fork(label: string | number): Rng {
    return new Rng(`${this.key}/${label}`);
  }
}
