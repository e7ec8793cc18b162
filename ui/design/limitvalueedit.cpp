#include "ui/design/limitvalueedit.h"

#include "model/policy/ratesyntax.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

namespace qs {

LimitValueEdit::LimitValueEdit(Kind kind, QWidget *parent)
    : QWidget(parent), m_kind(kind), m_edit(new QLineEdit(this)), m_words(new QLabel(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_words, 1);
    m_words->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_edit->setPlaceholderText(kind == Kind::Rate ? QStringLiteral("10/s, 0.5/s, 1 every 2s")
                                                  : QStringLiteral("1m, 10s, 500ms"));
    setFocusProxy(m_edit);
    connect(m_edit, &QLineEdit::textEdited, this, [this] {
        if (parse(true))
            emit edited();
    });
}

void LimitValueEdit::setText(const QString &text)
{
    if (m_edit->text() != text) {
        const int cursor = m_edit->cursorPosition();
        m_edit->setText(text);
        m_edit->setCursorPosition(std::min<int>(cursor, int(text.size())));
    }
    parse(false);
}

QString LimitValueEdit::text() const
{
    return m_edit->text().trimmed();
}

bool LimitValueEdit::parse(bool typed)
{
    m_rate.reset();
    m_duration.reset();
    QString problem;
    if (text().isEmpty()) {
        m_words->clear();
        return false;
    }
    if (m_kind == Kind::Rate) {
        const auto parsed = parseRate(text());
        if (!parsed)
            problem = parsed.error();
        else
            m_rate = *parsed;
    } else {
        const auto parsed = parseDuration(text());
        if (!parsed)
            problem = parsed.error();
        else
            m_duration = *parsed;
    }
    const bool valid = problem.isEmpty();
    m_words->setText(valid ? QStringLiteral("= ")
                + (m_rate ? describeRate(*m_rate) : formatDurationInWords(*m_duration))
            : typed ? tr("not saved: %1").arg(problem)
                    : tr("as the file has it"));
    m_words->setToolTip(valid ? QString() : problem);
    m_words->setStyleSheet(valid ? QString() : QStringLiteral("color: #d9534f"));
    m_edit->setProperty("invalid", !valid);
    m_edit->setStyleSheet(
        valid ? QString() : QStringLiteral("QLineEdit { border: 1px solid #c0392b; }"));
    return valid;
}

} // namespace qs
