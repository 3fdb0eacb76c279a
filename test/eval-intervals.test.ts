import { describe, expect, it } from 'vitest';
import {
  agrestiCoullInterval,
  clopperPearsonInterval,
  episodeBootstrapCI,
  exactOverUnits,
  jeffreysInterval,
  proportionInterval,
  PROPORTION_METHODS,
  taskBootstrapCI,
  waldInterval,
  wilsonInterval,
} from '../eval/index.ts';
import type { ProportionMethod } from '../eval/proportionInterval.ts';
import { Rng } from '../lib/rng.ts';

// Reference: statsmodels 0.13.5 `proportion_confint(c, n, alpha=1-level, method=...)`
// (method "normal" = wald, "beta" = clopper-pearson, "agresti_coull", "wilson", "jeffreys"),
// scipy 1.10.1 underneath. Columns: method, c, n, level, low, high.
const STATSMODELS: Array<[ProportionMethod, number, number, number, number, number]> = [
  ['wilson', 3, 10, 0.95, 0.10779126740630099, 0.6032218525388546],
  ['wald', 3, 10, 0.95, 0.015974234910674623, 0.5840257650893254],
  ['clopper-pearson', 3, 10, 0.95, 0.0667395111777345, 0.6524528500599973],
  ['jeffreys', 3, 10, 0.95, 0.09269459393815317, 0.6058183181486713],
  ['agresti-coull', 3, 10, 0.95, 0.10333841792242532, 0.6076747020227304],
  ['wilson', 3, 10, 0.9, 0.12687658390319784, 0.558300204130165],
  ['clopper-pearson', 3, 10, 0.9, 0.0872644339141503, 0.6066242161054123],
  ['jeffreys', 3, 10, 0.9, 0.11732937668021012, 0.558126766484634],
  ['agresti-coull', 3, 10, 0.9, 0.12359266736338517, 0.5615841206699778],
  ['wald', 3, 10, 0.99, 0.0, 0.6732731287160187],
  ['clopper-pearson', 3, 10, 0.99, 0.03700722109623209, 0.7351139852871307],
  ['wilson', 0, 40, 0.95, 0.0, 0.08762160119728664],
  ['wald', 0, 40, 0.95, 0.0, 0.0],
  ['clopper-pearson', 0, 40, 0.95, 0.0, 0.08809730287880237],
  ['agresti-coull', 0, 40, 0.95, 0.0, 0.1043962180002466],
  ['wilson', 40, 40, 0.95, 0.9123783988027135, 1.0],
  ['wald', 40, 40, 0.95, 1.0, 1.0],
  ['clopper-pearson', 40, 40, 0.95, 0.9119026971211976, 1.0],
  ['agresti-coull', 40, 40, 0.95, 0.8956037819997533, 1.0],
  ['wilson', 1, 40, 0.95, 0.0044268315026814095, 0.1288136896347409],
  ['wald', 1, 40, 0.95, 0.0, 0.07338273420199072],
  ['clopper-pearson', 1, 40, 0.95, 0.0006327449320494195, 0.13158585848276572],
  ['jeffreys', 1, 40, 0.95, 0.002710818486038123, 0.11094938047846861],
  ['agresti-coull', 1, 40, 0.95, 0.0, 0.14043412466443522],
  ['wilson', 17, 32, 0.99, 0.31901524514090807, 0.7327514263388633],
  ['wald', 17, 32, 0.99, 0.30402181354395036, 0.7584781864560497],
  ['clopper-pearson', 17, 32, 0.99, 0.2987491127589175, 0.7543594095128974],
  ['jeffreys', 17, 32, 0.99, 0.31251967866811503, 0.7413786187474442],
  ['agresti-coull', 17, 32, 0.99, 0.3189575957045129, 0.7328090757752584],
  ['wilson', 5, 2000, 0.95, 0.0010683087284139143, 0.005839153316432755],
  ['wald', 5, 2000, 0.95, 0.000311434495599232, 0.004688565504400768],
  ['clopper-pearson', 5, 2000, 0.95, 0.0008122259751939098, 0.005824445334518517],
  ['jeffreys', 5, 2000, 0.95, 0.0009545559495169254, 0.005471167122258511],
  ['agresti-coull', 5, 2000, 0.95, 0.00088505458655329, 0.00602240745829338],
  ['clopper-pearson', 1, 1, 0.95, 0.025000000000000022, 1.0],
  ['wilson', 1, 1, 0.95, 0.20654931437723745, 1.0],
  ['agresti-coull', 0, 1, 0.99, 0.0, 0.8966027438995714],
  ['clopper-pearson', 0, 1, 0.9, 0.0, 0.95],
];

describe('one-proportion intervals vs statsmodels', () => {
  it.each(STATSMODELS)('%s c=%i n=%i level=%f', (method, c, n, level, low, high) => {
    const interval = proportionInterval(c, n, { method, level });
    expect(interval.low).toBeCloseTo(low, 8);
    expect(interval.high).toBeCloseTo(high, 8);
  });

  it('Jeffreys at c = 0 and c = n: the statsmodels quantile on the inner side, 0 / 1 on the outer (Brown, Cai & DasGupta)', () => {
    // statsmodels 0.13.5 jeffreys(0, 40, 0.95) = (1.2199e-05, 0.060497975214079576); scipy beta.ppf(0.025, 0.5, 40.5) = 1.2199306575186339e-05
    expect(jeffreysInterval(0, 40)).toEqual({ low: 0, high: expect.closeTo(0.060497975214079576, 9) });
    // statsmodels 0.13.5 jeffreys(40, 40, 0.95) = (0.9395020247859204, 0.99998780)
    expect(jeffreysInterval(40, 40)).toEqual({ low: expect.closeTo(0.9395020247859204, 9), high: 1 });
  });

  it('each method function agrees with the dispatcher', () => {
    const wald = proportionInterval(3, 10, { method: 'wald' });
    expect(waldInterval(3, 10)).toEqual({ low: wald.low, high: wald.high });
    expect(wilsonInterval(7, 9, { level: 0.8 }).low).toBe(proportionInterval(7, 9, { level: 0.8 }).low);
    expect(clopperPearsonInterval(2, 5).high).toBe(
      proportionInterval(2, 5, { method: 'clopper-pearson' }).high,
    );
    expect(agrestiCoullInterval(2, 5).high).toBe(proportionInterval(2, 5, { method: 'agresti-coull' }).high);
  });

  it('stays inside [0, 1] and contains the estimate (Wald aside) for every c, n <= 60, three levels (property)', () => {
    for (const level of [0.8, 0.95, 0.999]) {
      for (let n = 1; n <= 60; n += n < 10 ? 1 : 7) {
        for (let c = 0; c <= n; c++) {
          for (const method of PROPORTION_METHODS) {
            const { low, high, estimate } = proportionInterval(c, n, { method, level });
            const inside = low >= 0 && high <= 1 && low <= high;
            const contains = method === 'wald' || (low <= estimate + 1e-12 && high >= estimate - 1e-12);
            if (!inside || !contains)
              expect({ method, c, n, level, low, high }).toBe('inside [0, 1] and containing c/n');
          }
        }
      }
    }
  });

  it('widens with the level and throws RangeError on bad input', () => {
    expect(wilsonInterval(3, 10, { level: 0.99 }).high).toBeGreaterThan(
      wilsonInterval(3, 10, { level: 0.9 }).high,
    );
    expect(() => wilsonInterval(11, 10)).toThrow(RangeError);
    expect(() => clopperPearsonInterval(1, 0)).toThrow(RangeError);
    expect(() => jeffreysInterval(1, 10, { level: 1 })).toThrow(RangeError);
    expect(() => proportionInterval(1, 10, { method: 'nope' as ProportionMethod })).toThrow(RangeError);
  });
});

describe('exactOverUnits: the interval a collapsed bootstrap falls back to', () => {
  // statsmodels 0.13.5 proportion_confint(c, n, method="beta") at whole c; scipy 1.10.1
  // beta.ppf(0.025, x, m - x + 1) and beta.ppf(0.975, x + 1, m - x) at x = m v otherwise.
  it.each([
    [1, 5, 0.4781762498950185, 1],
    [0, 10, 0, 0.30849710781876083],
    [0, 30, 0, 0.11570330822202782],
    [0.3, 10, 0.06673951117773447, 0.6524528500599973],
    [0.5, 6, 0.11811724875702521, 0.8818827512429748],
    [0.375, 4, 0.02847089508714679, 0.8772461172304822],
  ])('value %s over %s units', (value, units, low, high) => {
    const interval = exactOverUnits(value, units);
    expect(interval.low).toBeCloseTo(low, 10);
    expect(interval.high).toBeCloseTo(high, 10);
  });

  it('refuses no units and a value outside [0, 1]', () => {
    expect(() => exactOverUnits(1, 0)).toThrow(RangeError);
    expect(() => exactOverUnits(1.5, 4)).toThrow(/value/);
  });

  it('replaces a zero-width task or episode bootstrap, never a real one', () => {
    const rng = new Rng(1);
    const allSolved = taskBootstrapCI({ successes: [4, 4, 4, 4, 4], trials: 4 }, { rng });
    expect(allSolved.method).toBe('exact over tasks');
    expect(allSolved.low).toBeCloseTo(0.4781762498950185, 10);
    expect(allSolved.high).toBe(1);
    const noneSolved = episodeBootstrapCI({ successes: [0, 0, 0], trials: 10 }, { rng });
    expect(noneSolved.method).toBe('exact over episodes');
    expect(noneSolved.high).toBeCloseTo(0.11570330822202782, 10);
    const mixed = taskBootstrapCI({ successes: [4, 0, 2, 4, 1], trials: 4 }, { rng });
    expect(mixed.method).toBe('percentile');
    expect(mixed.low).toBeLessThan(mixed.high);
  });
});
