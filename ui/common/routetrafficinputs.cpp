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
        problem->setVisible(!parsed);
        problem->setText(parsed ? QString() : parsed.error());
    });
}

SuggestedLoad suggestedLoad(const Route &route)
{
    SuggestedLoad load;
    const auto converted = toAlgorithmConfig(route.limit());
    if (converted) {
        const LimitShape shape = limitShape(*converted);
        load.rate = {2 * shape.count, shape.period};
        load.burst = shape.burst;
    }
    return load;
}

} // namespace qs
