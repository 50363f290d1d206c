-- wrk script of benchmarks/load_test.py (--generator wrk): POST chart requests with many
-- API keys and pre-made bodies, and a JSON summary line at the end.
--
-- Reads $WRK_DATA/keys.txt (one API key a line) and $WRK_DATA/bodies.txt (one JSON body
-- a line); posts to $WRK_PATH (default /v2/charts/coordinates). Each thread starts at
-- its own offset and walks both lists in turn, so consecutive requests use different
-- keys and births.

local keys, bodies = {}, {}
local counter = 0
local threads = {}
local path = os.getenv("WRK_PATH") or "/v2/charts/coordinates"
local dir = os.getenv("WRK_DATA") or "."

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(dir .. "/keys.txt") do keys[#keys + 1] = line end
  for line in io.lines(dir .. "/bodies.txt") do bodies[#bodies + 1] = line end
  counter = tid * 7919
end

function request()
  counter = counter + 1
  local key = keys[(counter % #keys) + 1]
  local body = bodies[(counter % #bodies) + 1]
  return wrk.format("POST", path, {
    ["Authorization"] = "Bearer " .. key,
    ["Content-Type"] = "application/json",
    ["HD-Geocode-Key"] = "offline",
  }, body)
end

function done(summary, latency, requests)
  local s = summary
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"p50_us":%d,"p90_us":%d,' ..
    '"p99_us":%d,"max_us":%d}\n',
    s.requests, s.duration, s.errors.connect, s.errors.read, s.errors.write,
    s.errors.status, s.errors.timeout, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max))
end
