// The statements of a list request on node-postgres, loadable without Prisma (the benchmark's
// floor server runs them too), and the notices that wake a long poll on the changes feed.
export {
  CHANGE_NOTICE_CHANNEL,
  ChangeNotices,
  type ChangeNoticesOptions,
  type ChangeNoticesState,
  type ListWatch,
  type TeamListKey,
} from "./change-notices";
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
