import type { MetricsService } from "../metrics/metrics.service";
import { scrapedMetrics } from "../metrics/scraped-metrics";
import type { PageCache } from "./page-cache";

/** The list page cache, read at scrape time: hits, misses, evictions, deferred admissions and the bytes it holds. */
export function instrumentPageCache(cache: PageCache, metrics: MetricsService): void {
  const { counter, gauge } = scrapedMetrics(metrics.registry);
  // Declarations of one shape, repeated on purpose: one metric per figure of the cache's stats.
  counter("list_page_cache_hits_total", "List pages served from the page cache", () => cache.stats().hits);
  counter(
    "list_page_cache_misses_total",
    "List pages looked up in the page cache and read from the database",
    () => cache.stats().misses,
  );
  counter(
    "list_page_cache_evictions_total",
    "List pages dropped from the page cache to stay within PAGE_CACHE_BYTES",
    () => cache.stats().evictions,
  );
  counter(
    "list_page_cache_deferred_total",
    "Deeper list pages read and not kept: their first read within the admission window",
    () => cache.stats().deferred,
  );
  gauge(
    "list_page_cache_bytes",
    "Bytes held by the list page cache (bodies in every coding, and per-entry overhead)",
    () => cache.stats().bytes,
  );
  gauge("list_page_cache_max_bytes", "The page cache's budget (PAGE_CACHE_BYTES)", () => cache.maxBytes);
}
