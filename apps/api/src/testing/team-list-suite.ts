import { type Event, type FixtureEvent, type FixtureGuide, type Guide, priceFromMinorUnits } from "@community/domain";
import { contractFixture } from "@community/fixtures/testing";
import request from "supertest";
import { ACCOUNT_KEYS, PRICE_KEYS } from "./contract-assertions";
import { type E2eApp, startE2eApp } from "./e2e-app";

/**
 * What the e2e suites of the list endpoints share: the real app on PostgreSQL with the contract
 * fixture (booted before and closed after the calling describe's tests), GET of the list's path
 * with a member's token, and the check of a served item against its fixture source.
 */
export function teamListSuite(path: string) {
  const fixture = contractFixture();
  let e2e: E2eApp | undefined;
  const app = (): E2eApp => {
    if (e2e === undefined) throw new Error("the suite's app is not up (use the suite inside a describe)");
    return e2e;
  };

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", fixture);
  });

  afterAll(async () => {
    await e2e?.close();
  });

  const get = (token: string, query = "") =>
    request(app().server).get(`${path}${query}`).set("Authorization", `Bearer ${token}`);

  return {
    fixture,
    app,
    get,
    /** The ids of the first `pages` pages of `perPage` items, in the order they were served. */
    async idsOverPages(token: string, perPage: number, pages: number): Promise<string[]> {
      const ids: string[] = [];
      for (let page = 1; page <= pages; page++) {
        const response = await get(token, `?per_page=${perPage}&page=${page}`);
        ids.push(...response.body.guides.map((item: { id: string }) => item.id));
      }
      return ids;
    },
    /**
     * The item has exactly `keys` (and the contract's price and account keys) and equals its
     * source in `sources`: every field, the price in the currency's major unit, the account.
     */
    expectServedAsFixture(item: Event | Guide, sources: Array<FixtureEvent | FixtureGuide>, keys: string[]): void {
      expect(Object.keys(item).sort()).toEqual(keys);
      expect(Object.keys(item.price).sort()).toEqual(PRICE_KEYS);
      expect(Object.keys(item.account).sort()).toEqual(ACCOUNT_KEYS);
      const source = sources.find((s) => s.id === item.id);
      if (source === undefined) throw new Error(`unexpected item ${item.id}`);
      const { team_id: _team, account_id, price, ...fields } = source;
      expect(item).toEqual({
        ...fields,
        price: priceFromMinorUnits(price.value_in_cents, price.currency),
        account: fixture.accounts.find((a) => a.id === account_id),
      });
    },
  };
}
