import { PAGINATION, pageOffset, paginationMeta, totalPages } from "./pagination";

describe(totalPages.name, () => {
  it.each([
    [0, 100, 0],
    [1, 100, 1],
    [100, 100, 1],
    [101, 100, 2],
    [250, 20, 13],
    [7, 1, 7],
  ])("gives ceil(%i / %i) = %i", (items, perPage, pages) => {
    expect(totalPages(items, perPage)).toBe(pages);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("rejects %p items", (items) => {
    expect(() => totalPages(items, 10)).toThrow(RangeError);
  });

  it.each([0, -1, 2.5, Number.NaN])("rejects a page size of %p", (perPage) => {
    expect(() => totalPages(10, perPage)).toThrow(RangeError);
  });
});

describe(pageOffset.name, () => {
  it("skips the items of the pages before", () => {
    expect(pageOffset({ page: 1, perPage: 100 })).toBe(0);
    expect(pageOffset({ page: 3, perPage: 20 })).toBe(40);
  });

  it("stays an exact integer at the largest page and page size", () => {
    const offset = pageOffset({ page: PAGINATION.page.max, perPage: PAGINATION.perPage.max });
    expect(offset).toBe(214_748_364_600);
    expect(Number.isSafeInteger(offset)).toBe(true);
  });
});

describe(paginationMeta.name, () => {
  it("echoes the request and counts the pages", () => {
    expect(paginationMeta({ page: 2, perPage: 20 }, 45)).toEqual({ current_page: 2, per_page: 20, total_pages: 3 });
  });

  it("keeps the requested page when it is past the end", () => {
    expect(paginationMeta({ page: 9, perPage: 100 }, 5)).toEqual({ current_page: 9, per_page: 100, total_pages: 1 });
  });

  it("has zero pages when there are no items", () => {
    expect(paginationMeta({ page: 1, perPage: 100 }, 0)).toEqual({ current_page: 1, per_page: 100, total_pages: 0 });
  });

  it("has exactly the contract's keys", () => {
    expect(Object.keys(paginationMeta({ page: 1, perPage: 10 }, 1)).sort()).toEqual([
      "current_page",
      "per_page",
      "total_pages",
    ]);
  });
});

describe("PAGINATION", () => {
  it("holds the contract's bounds and defaults", () => {
    expect(PAGINATION).toEqual({
      page: { min: 1, max: 2_147_483_647, default: 1 },
      perPage: { min: 1, max: 100, default: 100 },
    });
  });
});
