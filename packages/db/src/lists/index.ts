// The statements of a list request on node-postgres, loadable without Prisma (the benchmark's
// floor server runs them too).
export * from "./changes";
export * from "./events.list";
export * from "./guides.list";
export * from "./item-columns";
export * from "./list-declarations";
export * from "./list-walker";
export * from "./lists";
export * from "./member-by-token";
export * from "./page-boundaries";
export * from "./team-list";
export * from "./team-list-reader";
