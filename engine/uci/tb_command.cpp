#include "engine/uci/tb_command.h"

#include <functional>
#include <iostream>

namespace pythia {

int tb_command(const std::vector<std::string>& args) {
    struct Verb {
        const char* name;
        const char* usage;
        std::function<int(const std::vector<std::string>&)> run;
    };
    static const Verb verbs[] = {
        {"generate", "tb generate <MATERIAL...|--all N> [--dir D] [--threads T]", tb_generate_command},
        {"verify", "tb verify [MATERIAL...|--all] [--dir D] [--wdl-only]", tb_verify_command},
        {"recompress", "tb recompress [MATERIAL...|--all] [--dir D] [--threads T] [--wdl-only]", tb_recompress_command},
        {"rewrite",
         "tb rewrite [MATERIAL...|--all] [--one-side [--one-side-pieces N]] [--resolve-dtm [--resolve-dtm-pieces N]] "
         "[--wdl-only|--dtm-only] "
         "[--dir D] [--threads T] [--jobs J] [--force]",
         tb_rewrite_command},
        {"info", "tb info [MATERIAL...] [--dir D]", tb_info_command},
        {"probe", "tb probe [--dir D] [--json] [FEN]", tb_probe_command},
    };
    if (!args.empty())
        for (const Verb& v : verbs)
            if (args[0] == v.name) return v.run(std::vector<std::string>(args.begin() + 1, args.end()));
    std::cerr << (args.empty() ? "tb: which command?\n" : "tb: unknown command '" + args[0] + "'\n");
    for (const Verb& v : verbs) std::cerr << "usage: pythia " << v.usage << '\n';
    return 2;
}

}  // namespace pythia
