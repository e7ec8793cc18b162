#pragma once
// Syntax colouring for exported configuration files: comments, keys and directives, strings,
// numbers. One small rule set per family (YAML, NGINX/HAProxy, JSON, Lua, Markdown); colours
// come from the palette's lightness so that light and dark themes both read well.
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace qs {

class ConfigHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    enum class Language { Yaml, Directives, Json, Lua, Markdown, Plain };
    ConfigHighlighter(QTextDocument *document, Language language, bool darkTheme);

    static Language languageForFile(const QString &fileName);

protected:
    void highlightBlock(const QString &text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
        int group = 0;
    };
    QList<Rule> m_rules;
};

} // namespace qs
