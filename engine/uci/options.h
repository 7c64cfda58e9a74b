// UCI options: one table of declarations, each with a callback run when the GUI sets it.
// Names are matched case-insensitively, as the protocol asks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pythia {

class OptionTable {
public:
    enum class Type { CHECK, SPIN, COMBO, BUTTON, STRING };

    struct Option {
        std::string name;
        Type type = Type::BUTTON;
        std::string default_value;
        int64_t min = 0, max = 0;          // SPIN
        std::vector<std::string> choices;  // COMBO
        std::string value;                 // current value, as text
        std::function<void(const Option&)> on_change;

        bool check() const { return value == "true"; }
        int64_t spin() const { return std::stoll(value); }
    };
    using Callback = std::function<void(const Option&)>;

    void add_check(const std::string& name, bool value, Callback cb = {});
    void add_spin(const std::string& name, int64_t value, int64_t min, int64_t max, Callback cb = {});
    void add_combo(const std::string& name, const std::string& value, std::vector<std::string> choices,
                   Callback cb = {});
    void add_string(const std::string& name, const std::string& value, Callback cb = {});
    void add_button(const std::string& name, Callback cb);

    // The `option name ... type ...` lines for the reply to `uci`, in declaration order.
    std::vector<std::string> declarations() const;
    // Applies `setoption name <name> value <value>`; on bad input returns why (and changes
    // nothing), otherwise an empty string. The callback runs after the value is stored.
    std::string set(const std::string& name, const std::string& value);

    const Option* find(const std::string& name) const;
    bool check(const std::string& name) const { return find(name)->check(); }
    int64_t spin(const std::string& name) const { return find(name)->spin(); }
    const std::string& text(const std::string& name) const { return find(name)->value; }

private:
    Option& add(Option o);
    std::vector<Option> options_;
};

}  // namespace pythia
