#include "engine/uci/logging.h"

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace pythia {

void init_logging() {
    static bool done = false;
    if (done) return;
    done = true;
    auto logger = spdlog::stderr_color_mt("pythia");
    logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    spdlog::set_default_logger(logger);
    spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows, for example, each step of a tablebase write
}

}  // namespace pythia
