#include "optiontable.h"

#include "commands.h"

#include <QTextStream>

namespace qs::cli {

namespace {

constexpr int kHelpColumn = 23; // where an option's help starts, under "  --name VALUE"

} // namespace

namespace opt {

Option flag(QString name, QString help, bool *into)
{
    return {std::move(name), {}, {}, std::move(help), [into](const QString &) {
                *into = true;
                return std::optional<QString>();
            }};
}

Option text(QString name, QString value, QString help, QString *into)
{
    return {std::move(name), {}, std::move(value), std::move(help), [into](const QString &v) {
                *into = v;
                return std::optional<QString>();
            }};
}

Option integer(
    QString name, QString help, qint64 least, qint64 most, std::function<void(qint64)> into)
{
    const QString range = most == std::numeric_limits<qint64>::max()
        ? QStringLiteral(">= %1").arg(least)
        : QStringLiteral("from %1 to %2").arg(least).arg(most);
    return {name, {}, QStringLiteral("N"), std::move(help),
        [name, least, most, range, into = std::move(into)](const QString &v) {
            bool number = false;
            const qint64 n = v.toLongLong(&number);
            if (!number || n < least || n > most)
                return std::optional<QString>(
                    QStringLiteral("%1 takes a whole number %2, not '%3'").arg(name, range, v));
            into(n);
            return std::optional<QString>();
        }};
}

Option choice(QString name, QStringList choices, QString help, QString *into)
{
    const QString value = choices.join(QLatin1Char('|'));
    return {name, {}, value, std::move(help),
        [name, choices = std::move(choices), into](const QString &v) {
            if (!choices.contains(v)) {
                QStringList quoted = choices;
                const QString last = quoted.takeLast();
                return std::optional<QString>(
                    QStringLiteral("%1 takes %2 or %3, not '%4'")
                        .arg(name, quoted.join(QStringLiteral(", ")), last, v));
            }
            *into = v;
            return std::optional<QString>();
        }};
}

} // namespace opt

OptionTable::OptionTable(
    const char *command, QString usage, QString about, std::vector<Option> options, QString after)
    : m_command(command), m_usage(std::move(usage)), m_about(std::move(about)),
      m_after(std::move(after)), m_options(std::move(options))
{
}

QString OptionTable::help() const
{
    QString out = QStringLiteral("Usage: ") + m_usage + QStringLiteral("\n\n") + m_about
        + QStringLiteral("\nOptions:\n");
    for (const Option &o : m_options) {
        QString left = QStringLiteral("  ") + o.name;
        if (!o.alias.isEmpty())
            left += QStringLiteral(", ") + o.alias;
        if (!o.value.isEmpty())
            left += QLatin1Char(' ') + o.value;
        const QStringList lines = o.help.split(QLatin1Char('\n'));
        if (left.size() >= kHelpColumn - 1)
            out += left + QLatin1Char('\n') + QString(kHelpColumn, QLatin1Char(' '));
        else
            out += left.leftJustified(kHelpColumn);
        out += lines.join(QLatin1Char('\n') + QString(kHelpColumn, QLatin1Char(' ')))
            + QLatin1Char('\n');
    }
    return out + m_after;
}

const Option *OptionTable::find(const QString &arg) const
{
    for (const Option &o : m_options)
        if (arg == o.name || (!o.alias.isEmpty() && arg == o.alias))
            return &o;
    return nullptr;
}

std::optional<int> OptionTable::parse(const QStringList &args, QStringList *positional) const
{
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
            QTextStream(stdout) << help();
            return 0;
        }
        // --name=value, as GNU tools take it, for an option with a value.
        const qsizetype equals
            = a.startsWith(QLatin1String("--")) ? a.indexOf(QLatin1Char('=')) : -1;
        const QString name = equals > 0 ? a.left(equals) : a;
        const Option *o = find(name);
        if (o && equals > 0) {
            if (o->value.isEmpty())
                return usage(QStringLiteral("%1 takes no value").arg(name));
            if (const std::optional<QString> refused = o->apply(a.mid(equals + 1)))
                return usage(*refused);
            continue;
        }
        if (!o) {
            if (a.startsWith(QLatin1Char('-')) && a.size() > 1)
                return usage(QStringLiteral("unknown option '%1'").arg(a));
            if (!positional)
                return usage(QStringLiteral("unknown argument '%1'").arg(a));
            positional->append(a);
            continue;
        }
        QString value;
        if (!o->value.isEmpty()) {
            if (i + 1 >= args.size())
                return usage(QStringLiteral("%1 needs a value").arg(a));
            value = args[++i];
        }
        if (const std::optional<QString> refused = o->apply(value))
            return usage(*refused);
    }
    return std::nullopt;
}

int OptionTable::usage(const QString &message) const
{
    return usageError(m_command, message);
}

} // namespace qs::cli
