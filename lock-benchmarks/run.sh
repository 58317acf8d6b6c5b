#!/usr/bin/env bash
# Runs the whole Distlock / Redisson / Spring Integration / raw-floor comparison and writes
# lock-benchmarks/results.md. About 10 minutes on 2 cores.
#
#   lock-benchmarks/run.sh                       # everything
#   ONLY=A,C64 lock-benchmarks/run.sh            # some scenarios (A B C16 C64 D1 D8 F R CA64 W S1 S16 E I;
#                                                  # a letter alone runs its numbered ones: S = S1,S16)
#   WARMUP=2x3 MEASURE=3x5 lock-benchmarks/run.sh  # longer iterations (iterations x seconds;
#                                                  # W's single-shot rounds use the counts only)
#   ONLY=I INTERLEAVED_LIBS=raw,distlock ROUNDS=9 lock-benchmarks/run.sh
#                                                  # the interleaved cross-check (A, C16, C64) only
#
# The rows a run repeats are compared with results.md as it was before the run (BASELINE=file to
# compare with another report).
set -euo pipefail
cd "$(dirname "$0")/.."

./mvnw -q ${MVN_OFFLINE:+-o} -Pbenchmarks -pl lock-benchmarks -am package -DskipTests

rm -rf lock-benchmarks/target/bench-metrics
mkdir -p lock-benchmarks/target
exec java -Xmx1g \
  -cp "lock-benchmarks/target/classes:$(cat lock-benchmarks/target/benchmark.classpath)" \
  -Ddistlock.bench.results="${RESULTS:-lock-benchmarks/results.md}" \
  -Ddistlock.bench.baseline="${BASELINE:-${RESULTS:-lock-benchmarks/results.md}}" \
  -Ddistlock.bench.out=lock-benchmarks/target/bench-metrics \
  -Ddistlock.bench.only="${ONLY:-}" \
  -Ddistlock.bench.warmup="${WARMUP:-2x2}" \
  -Ddistlock.bench.measure="${MEASURE:-3x3}" \
  -Ddistlock.bench.interleaved.libs="${INTERLEAVED_LIBS:-raw,distlock,redisson,spring-spin}" \
  -Ddistlock.bench.interleaved.rounds="${ROUNDS:-5}" \
  -Ddistlock.bench.interleaved.warmup="${WARMUP_ROUNDS:-1}" \
  -Ddistlock.bench.interleaved.millis="${ROUND_MILLIS:-800}" \
  dev.distlock.benchmarks.RunComparison 2>&1 | tee lock-benchmarks/target/run.log
