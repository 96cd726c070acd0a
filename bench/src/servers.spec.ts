import { parseDockerfile } from "./dockerfile";
import { imageEnvironment, slotEnvironment } from "./servers";

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

describe(imageEnvironment.name, () => {
  it("reads the final stage's ENV pairs and those of the stages it is built from, continuations joined", () => {
    const dockerfile = [
      "FROM node AS base",
      "ENV CI=true PORT=80",
      "FROM base AS build",
      "ENV BUILD_ONLY=1",
      "FROM base AS runtime",
      "# a comment",
      "ENV NODE_ENV=production \\",
      "    # inside a continuation",
      "    PORT=3000 \\",
      "    MALLOC_ARENA_MAX=2",
      'CMD ["node", "main.js"]',
    ].join("\n");
    expect(imageEnvironment(parseDockerfile(dockerfile))).toEqual({
      CI: "true",
      NODE_ENV: "production",
      PORT: "3000",
      MALLOC_ARENA_MAX: "2",
    });
  });

  it("refuses a form it cannot read, naming the line", () => {
    expect(() => imageEnvironment(parseDockerfile('FROM node\nENV GREETING="hello world"\n'))).toThrow(
      'Dockerfile line 2: ENV "GREETING="hello" is not NAME=value',
    );
    expect(() => imageEnvironment(parseDockerfile("FROM node\nENV LEGACY value\n"))).toThrow(
      'Dockerfile line 2: ENV "LEGACY"',
    );
    expect(() => imageEnvironment(parseDockerfile("FROM node\nENV PATH=/pnpm:$PATH\n"))).toThrow(
      'ENV "PATH=/pnpm:$PATH"',
    );
  });

  it("gives the repository's image its malloc arena bound", () => {
    expect(imageEnvironment()).toMatchObject({ MALLOC_ARENA_MAX: "2", NODE_ENV: "production" });
  });
});
