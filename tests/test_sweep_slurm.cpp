/* walsim sweep --slurm against a real Slurm. Hidden from the default run ("[.]"): CTest runs it
 * through scripts/slurm-local, which starts a single-node cluster on localhost and sets
 * SLURM_CONF, or skips it (exit 77) where Slurm is not installed. */
#include "test_sweep_harness.hpp"

using sweep_test::kScenario;
using sweep_test::kShort;
using sweep_test::read_file;
using sweep_test::Scratch;

TEST_CASE("sweep runs as a Slurm job array", "[.][slurm]")
{
  if (!std::getenv("SLURM_CONF")) FAIL("no SLURM_CONF: run this test through scripts/slurm-local with ...");
  Scratch s;
  const std::string sweep =
      "sweep '" + sweep_test::kScenario + "'" + kShort + "--vary pgbench.clients=1,2 --repeat 2 --jobs 2 --out ";
  const auto emit = s.walsim(sweep + "cluster --slurm array.sbatch");
  INFO(emit);
  REQUIRE(emit.status == 0);
  const std::string script = read_file(s / "array.sbatch");
  CHECK(script.find("#SBATCH --array=0-3") != std::string::npos);

  const auto batch = s.sh("sbatch --wait array.sbatch");
  INFO(batch);
  REQUIRE(batch.status == 0);
  const auto collect = s.walsim(sweep + "cluster");
  INFO(collect);
  REQUIRE(collect.status == 0);
  CHECK(collect.err.find("4 done, nothing to run") != std::string::npos);
  CHECK(std::filesystem::exists(s / "cluster/slurm"));

  REQUIRE(s.walsim(sweep + "local").status == 0);
  CHECK(read_file(s / "cluster/results.csv") == read_file(s / "local/results.csv"));
}
