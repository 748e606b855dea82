-- InterUSS automated-testing interfaces (worker/interuss/). Kept apart from the airspace and flight
-- tables: the qualifier loads and clears its own test data, which must not leak into the embedded airspace.

-- geospatial_map/v1 data sources: the ED-269 zones each one loaded, as parsed (worker/interuss/ed269.ts).
CREATE TABLE `interuss_data_sources` (
  `id` text PRIMARY KEY NOT NULL,
  `url` text NOT NULL,
  `status` text NOT NULL,
  `message` text,
  `zones` text NOT NULL DEFAULT '[]',
  `updated_at` integer NOT NULL
);

-- flight_planning/v1 flight plans: the qualifier's plan id → this service's plan and flight, the last
-- answer (replayed for a repeated request_id) and the area, for clear_area_requests.
CREATE TABLE `interuss_flight_plans` (
  `id` text PRIMARY KEY NOT NULL,
  `plan_id` text,
  `flight_id` text,
  `status` text NOT NULL,
  `request_id` text NOT NULL,
  `response` text NOT NULL,
  `min_lat` real NOT NULL,
  `min_lng` real NOT NULL,
  `max_lat` real NOT NULL,
  `max_lng` real NOT NULL,
  `start_time` integer NOT NULL,
  `end_time` integer NOT NULL,
  `updated_at` integer NOT NULL
);
