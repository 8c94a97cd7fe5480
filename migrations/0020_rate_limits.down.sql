DROP TABLE rate_inflight;
DROP TABLE rate_buckets;
DROP TABLE rate_limit_settings;
