// Calendar feeds (contract 11): the statements that find a feed and read its events, loadable
// without Prisma (the benchmark's floor runs them too), and the iCalendar text they become.
export * from "./calendar-text";
export * from "./feed-by-secret";
export * from "./feed-events";
