import { slotEnvironment } from "./servers";

describe(slotEnvironment.name, () => {
  it("reads space-separated NAME=value pairs, values kept as written", () => {
    expect(slotEnvironment("floor", " MALLOC_ARENA_MAX=2  UV_THREADPOOL_SIZE=8 EMPTY= ")).toEqual({
      MALLOC_ARENA_MAX: "2",
      UV_THREADPOOL_SIZE: "8",
      EMPTY: "",
    });
  });

  it("is empty when the variable is unset or blank", () => {
    expect(slotEnvironment("api", undefined)).toEqual({});
    expect(slotEnvironment("api", "  ")).toEqual({});
  });

  it("refuses a pair that is not NAME=value, naming the variable and the pair", () => {
    expect(() => slotEnvironment("naive", "MALLOC_ARENA_MAX")).toThrow(
      'BENCH_ENV_NAIVE: "MALLOC_ARENA_MAX" is not NAME=value',
    );
    expect(() => slotEnvironment("naive", "2X=1")).toThrow('BENCH_ENV_NAIVE: "2X=1" is not NAME=value');
  });
});
