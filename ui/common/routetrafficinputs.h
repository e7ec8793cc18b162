#pragma once
// What the Simulate and Probe pages share about their inputs: the route box that follows the
// policy, the traffic spec checked as it is typed, and the traffic that page suggests for a
// route (twice its long-run rate: something to admit and something to deny).
#include "model/policy/policy.h"

class QComboBox;
class QLabel;
class QLineEdit;

namespace qs {

// Refills `box` with the policy's route ids, keeping the selection when its route is still
// there; false when it is not (the caller then suggests new traffic).
bool refillRouteBox(QComboBox *box, const Policy &policy);

// Shows what is wrong with the spec in `problem` while it is typed (hidden when nothing is).
void showTrafficProblems(QLineEdit *traffic, QLabel *problem);

// Twice the route's long-run rate, and how many it lets through at once (defaults for a route
// whose limit is incomplete).
struct SuggestedLoad {
    limiter::Rate rate{20, limiter::kMicrosPerSecond};
    qint64 burst = 10;
};
SuggestedLoad suggestedLoad(const Route &route);

} // namespace qs
