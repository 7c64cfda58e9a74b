#include "engine/uci/logging.h"

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
}

}  // namespace pythia
