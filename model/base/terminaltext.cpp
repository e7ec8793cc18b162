#include "model/base/terminaltext.h"

#include <algorithm>

namespace qs {

QString terminalSafe(const QString &text)
{
    const auto printable
        = [](QChar c) { return c.isPrint() && c.category() != QChar::Other_Format; };
    if (std::all_of(text.begin(), text.end(), printable))
        return text; // the common case, without a copy
    QString out;
    out.reserve(text.size() + 8);
    for (const QChar c : text) {
        if (printable(c)) {
            out += c;
            continue;
        }
        switch (c.unicode()) {
        case u'\n':
            out += QStringLiteral("\\n");
            break;
        case u'\r':
            out += QStringLiteral("\\r");
            break;
        case u'\t':
            out += QStringLiteral("\\t");
            break;
        case 0:
            out += QStringLiteral("\\0");
            break;
        default:
            out += c.unicode() < 0x100
                ? QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'))
                : QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
        }
    }
    return out;
}

} // namespace qs
