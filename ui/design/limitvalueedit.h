#pragma once
// A rate or a duration of a limit, typed as the policy format writes it (`0.5/s`, `30/min`,
// `1 every 2 s`, `5/250ms`; `1m`, `500ms`) and shown back in words ("1 request every 2 s",
// "12.5 s"). The text is the operator's own: it is what the file gets. A spin box cannot hold
// `0.5` (it once turned 0.5/s into 5/s, a limit ten times looser), so this is a line edit whose
// every keystroke is parsed by the policy format's own parser.
#include "limiter/algorithms/rate.h"

#include <QWidget>

#include <optional>

class QLabel;
class QLineEdit;

namespace qs {

class LimitValueEdit : public QWidget {
    Q_OBJECT
public:
    enum class Kind { Rate, Duration };
    explicit LimitValueEdit(Kind kind, QWidget *parent = nullptr);

    // Shows `text` as written (empty: the field is unset), without emitting edited().
    void setText(const QString &text);
    QString text() const;
    // The parsed value; unset while the text is not one.
    std::optional<limiter::Rate> rate() const { return m_rate; }
    std::optional<limiter::Micros> duration() const { return m_duration; }

    QLineEdit *lineEdit() const { return m_edit; }

signals:
    // The operator changed the text to a valid value (invalid text is never committed; the
    // field says what is wrong instead).
    void edited();

private:
    // Updates the value and the words; false when the text is not valid. `typed`: the operator's
    // text, which is not saved while invalid; else the file's, which the form's message for the
    // field already explains.
    bool parse(bool typed);

    Kind m_kind;
    QLineEdit *m_edit;
    QLabel *m_words;
    std::optional<limiter::Rate> m_rate;
    std::optional<limiter::Micros> m_duration;
};

} // namespace qs
