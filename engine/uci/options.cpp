#include "engine/uci/options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace pythia {

namespace {

bool iequal(const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

OptionTable::Option& OptionTable::add(Option o) {
    if (find(o.name)) throw std::logic_error("option declared twice: " + o.name);
    o.value = o.default_value;
    options_.push_back(std::move(o));
    return options_.back();
}

void OptionTable::add_check(const std::string& name, bool value, Callback cb) {
    add({name, Type::CHECK, value ? "true" : "false", 0, 0, {}, {}, std::move(cb)});
}

void OptionTable::add_spin(const std::string& name, int64_t value, int64_t min, int64_t max, Callback cb) {
    add({name, Type::SPIN, std::to_string(value), min, max, {}, {}, std::move(cb)});
}

void OptionTable::add_combo(const std::string& name, const std::string& value, std::vector<std::string> choices,
                            Callback cb) {
    add({name, Type::COMBO, value, 0, 0, std::move(choices), {}, std::move(cb)});
}

void OptionTable::add_string(const std::string& name, const std::string& value, Callback cb) {
    add({name, Type::STRING, value, 0, 0, {}, {}, std::move(cb)});
}

void OptionTable::add_button(const std::string& name, Callback cb) {
    add({name, Type::BUTTON, "", 0, 0, {}, {}, std::move(cb)});
}

const OptionTable::Option* OptionTable::find(const std::string& name) const {
    for (const Option& o : options_)
        if (iequal(o.name, name)) return &o;
    return nullptr;
}

std::vector<std::string> OptionTable::declarations() const {
    std::vector<std::string> lines;
    for (const Option& o : options_) {
        std::string line = "option name " + o.name + " type ";
        switch (o.type) {
            case Type::CHECK:
                line += "check default " + o.default_value;
                break;
            case Type::SPIN:
                line += "spin default " + o.default_value + " min " + std::to_string(o.min) + " max " +
                        std::to_string(o.max);
                break;
            case Type::COMBO:
                line += "combo default " + o.default_value;
                for (const auto& c : o.choices) line += " var " + c;
                break;
            case Type::BUTTON:
                line += "button";
                break;
            case Type::STRING:
                line += "string default " + (o.default_value.empty() ? "<empty>" : o.default_value);
                break;
        }
        lines.push_back(line);
    }
    return lines;
}

std::string OptionTable::set(const std::string& name, const std::string& raw) {
    auto it = std::find_if(options_.begin(), options_.end(), [&](const Option& o) { return iequal(o.name, name); });
    if (it == options_.end()) return "no such option: '" + name + "'";
    Option& o = *it;
    std::string value = raw;
    switch (o.type) {
        case Type::CHECK:
            if (iequal(value, "true"))
                value = "true";
            else if (iequal(value, "false"))
                value = "false";
            else
                return "option " + o.name + " takes true or false, not '" + raw + "'";
            break;
        case Type::SPIN: {
            int64_t n = 0;
            auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (ec != std::errc() || p != value.data() + value.size())
                return "option " + o.name + " takes a number, not '" + raw + "'";
            if (n < o.min || n > o.max)
                return "option " + o.name + " must be from " + std::to_string(o.min) + " to " + std::to_string(o.max) +
                       ", not " + raw;
            value = std::to_string(n);
            break;
        }
        case Type::COMBO: {
            auto c = std::find_if(o.choices.begin(), o.choices.end(),
                                  [&](const std::string& x) { return iequal(x, value); });
            if (c == o.choices.end()) return "option " + o.name + " has no choice '" + raw + "'";
            value = *c;
            break;
        }
        case Type::BUTTON:
            value.clear();
            break;
        case Type::STRING:
            if (value == "<empty>") value.clear();
            break;
    }
    o.value = value;
    if (o.on_change) o.on_change(o);
    return {};
}

}  // namespace pythia
