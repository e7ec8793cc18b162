#include "ui/common/routetrafficinputs.h"

#include "model/export/limitshape.h"
#include "model/policy/limitconversion.h"
#include "model/simulation/traffic.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>

namespace qs {

bool refillRouteBox(QComboBox *box, const Policy &policy)
{
    const QString current = box->currentText();
    const QSignalBlocker block(box);
    box->clear();
    for (const Route &r : policy.routes)
        box->addItem(r.id);
    const int again = box->findText(current);
    box->setCurrentIndex(again >= 0 ? again : 0);
    return again >= 0;
}

void showTrafficProblems(QLineEdit *traffic, QLabel *problem)
{
    QObject::connect(traffic, &QLineEdit::textChanged, problem, [problem](const QString &text) {
        const auto parsed = parseTrafficSpec(text);
        const auto *what = std::get_if<QString>(&parsed);
        problem->setVisible(what);
        problem->setText(what ? *what : QString());
    });
}

SuggestedLoad suggestedLoad(const Route &route)
{
    SuggestedLoad load;
    const auto converted = toAlgorithmConfig(route.limit);
    if (const auto *config = std::get_if<limiter::AlgorithmConfig>(&converted)) {
        const LimitShape shape = limitShape(*config);
        load.rate = {2 * shape.count, shape.period};
        load.burst = shape.burst;
    }
    return load;
}

} // namespace qs
