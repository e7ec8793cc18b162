#include "ui/common/confighighlighter.h"

namespace qs {

namespace {

QTextCharFormat textFormat(const QColor &color, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(color);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

} // namespace

ConfigHighlighter::Language ConfigHighlighter::languageForFile(const QString &fileName)
{
    if (fileName.endsWith(QLatin1String(".yaml")) || fileName.endsWith(QLatin1String(".yml")))
        return Language::Yaml;
    if (fileName.endsWith(QLatin1String(".conf")) || fileName.endsWith(QLatin1String(".cfg")))
        return Language::Directives;
    if (fileName.endsWith(QLatin1String(".json")))
        return Language::Json;
    if (fileName.endsWith(QLatin1String(".lua")))
        return Language::Lua;
    if (fileName.endsWith(QLatin1String(".md")))
        return Language::Markdown;
    return Language::Plain;
}

ConfigHighlighter::ConfigHighlighter(QTextDocument *document, Language language, bool dark)
    : QSyntaxHighlighter(document)
{
    const QColor keyColor = dark ? QColor(0x7f, 0xb8, 0xff) : QColor(0x1a, 0x4f, 0x9c);
    const QColor stringColor = dark ? QColor(0xa5, 0xd6, 0x86) : QColor(0x2b, 0x7a, 0x1f);
    const QColor numberColor = dark ? QColor(0xf0, 0xb0, 0x70) : QColor(0xa3, 0x4a, 0x00);
    const QColor commentColor = dark ? QColor(0x9a, 0x9a, 0x9a) : QColor(0x70, 0x70, 0x70);
    const auto rule = [this](const QString &re, const QTextCharFormat &f, int group = 0) {
        m_rules.append({QRegularExpression(re), f, group});
    };
    rule(QStringLiteral("\\b-?\\d+(\\.\\d+)?(ms|s|m|h|d|r/s|r/m|k)?\\b"), textFormat(numberColor));
    switch (language) {
    case Language::Yaml:
        rule(QStringLiteral("^\\s*(?:- )?([\"@A-Za-z0-9_.:-]+\"?)\\s*:(?=\\s|$)"),
            textFormat(keyColor, true), 1);
        break;
    case Language::Directives:
        rule(QStringLiteral("^\\s*([a-z_][a-z0-9_-]*)"), textFormat(keyColor, true), 1);
        break;
    case Language::Json:
        rule(QStringLiteral("(\"[^\"]*\")\\s*:"), textFormat(keyColor, true), 1);
        break;
    case Language::Lua:
        rule(QStringLiteral("\\b(local|if|then|else|elseif|end|return|and|or|not|for|do|while|nil|"
                            "true|false)\\b"),
            textFormat(keyColor, true));
        break;
    case Language::Markdown:
        rule(QStringLiteral("^#+ .*"), textFormat(keyColor, true));
        rule(QStringLiteral("`[^`]*`"), textFormat(stringColor));
        break;
    case Language::Plain:
        break;
    }
    if (language != Language::Markdown) {
        rule(QStringLiteral("\"(?:[^\"\\\\]|\\\\.)*\""), textFormat(stringColor));
        rule(QStringLiteral("'[^']*'"), textFormat(stringColor));
    }
    const QString comment = language == Language::Lua ? QStringLiteral("--.*$")
        : language == Language::Json || language == Language::Markdown
        ? QString()
        : QStringLiteral("(^|\\s)#.*$");
    if (!comment.isEmpty())
        rule(comment, textFormat(commentColor, false, true));
}

void ConfigHighlighter::highlightBlock(const QString &text)
{
    for (const Rule &r : m_rules) {
        auto it = r.pattern.globalMatch(text);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            setFormat(int(m.capturedStart(r.group)), int(m.capturedLength(r.group)), r.format);
        }
    }
}

} // namespace qs
