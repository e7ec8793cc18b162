#pragma once
// The Run and Cancel buttons (F5, Esc), a progress bar and a status line under a page's
// settings: the Simulate and Probe pages run long work the same way, with the same keys.
#include <QList>
#include <QString>

class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;

namespace qs {

struct RunControls {
    QPushButton *run = nullptr;
    QPushButton *cancel = nullptr; // disabled until a run starts
    QProgressBar *progress = nullptr;
    QLabel *status = nullptr;
};

// Adds the rows to `form`; `extra` buttons sit between Run and Cancel (Simulate's Compare).
RunControls addRunControls(QFormLayout *form, const QString &runTip, const QString &cancelTip,
    const QList<QPushButton *> &extra = {});

} // namespace qs
