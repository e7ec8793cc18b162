#pragma once
// A subcommand's options, declared once: the parser reads them from the table, and --help
// prints them from it. The man page (manpage.cmake) and the bash completion
// (resources/completion/quotactl.bash) read --help, so the four cannot drift: a choice's values
// are printed as `--engine auto|lua|module`, which is how the completion finds them.
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

namespace qs::cli {

struct Option {
    QString name; // "--policy"
    QString alias; // "-o", or empty
    QString
        value; // what --help shows after the name ("FILE", "N", "auto|lua|module"); empty: a flag
    QString help; // one or more lines; wrapped as written
    // Takes the value (a flag gets an empty one); an error message when it is refused.
    std::function<std::optional<QString>(const QString &value)> apply;
};

// What an option's `apply` is made of, for the common kinds.
namespace opt {
Option flag(QString name, QString help, bool *into);
Option text(QString name, QString value, QString help, QString *into);
// A whole number in [least, most]; the message names the range.
Option integer(
    QString name, QString help, qint64 least, qint64 most, std::function<void(qint64)> into);
// One of `choices`, printed in --help as a|b|c.
Option choice(QString name, QStringList choices, QString help, QString *into);
} // namespace opt

class OptionTable {
public:
    // `usage` is the first line after "Usage: "; `about` the paragraphs before the options;
    // `after` what follows them (exit status, examples).
    OptionTable(const char *command, QString usage, QString about, std::vector<Option> options,
        QString after);

    QString help() const;

    // Reads `args` into the table's targets. nullopt: go on, with the arguments that are no
    // option in `positional`; else the exit status to return now (0 after --help, 2 after a
    // usage error, which has been printed).
    std::optional<int> parse(const QStringList &args, QStringList *positional = nullptr) const;

    int usage(const QString &message) const;

private:
    const Option *find(const QString &arg) const;

    const char *m_command;
    QString m_usage, m_about, m_after;
    std::vector<Option> m_options;
};

} // namespace qs::cli
