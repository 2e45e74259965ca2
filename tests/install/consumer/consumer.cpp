// A program outside the project, built against an installed exactvmaf: scores
// a y4m pair with the built-in default model and prints the pooled VMAF mean
// (%.17g), then checks that the library's exceptions reach it as
// exactvmaf::Error.
#include <cstdio>
#include <optional>

#include <exactvmaf/exactvmaf.hpp>
#include <exactvmaf/model.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer REF.y4m DIST.y4m\n");
    return 2;
  }
  namespace ev = exactvmaf;
  try {
    auto ref = ev::open_video(argv[1], std::nullopt);
    auto dist = ev::open_video(argv[2], std::nullopt);
    const auto models = ev::load_models({ev::parse_model_spec("version=vmaf_v0.6.1")}, {});
    ev::RunOptions opts;
    opts.threads = 2;
    ev::RunResult r = ev::run(*ref, *dist, ev::model_feature_requests(models), opts);
    ev::predict(models, r.scores, r.frames);
    const auto id = r.scores.find_metric("vmaf");
    const auto mean = id ? r.scores.pooled(*id, ev::PoolMethod::mean, 0, r.frames - 1, 1) : std::nullopt;
    if (!mean) {
      std::fprintf(stderr, "consumer: no vmaf score\n");
      return 1;
    }
    std::printf("%.17g\n", *mean);
  } catch (const ev::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  try {
    (void)ev::open_video("/nonexistent/input.y4m", std::nullopt);
  } catch (const ev::Error&) {
    return 0;
  } catch (...) {
    std::fprintf(stderr, "consumer: the library's error did not arrive as exactvmaf::Error\n");
    return 1;
  }
  std::fprintf(stderr, "consumer: opening a missing file did not fail\n");
  return 1;
}
