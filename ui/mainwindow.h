#pragma once
#include "model/policy.h"

#include <QMainWindow>

class QTabWidget;

namespace qs {

// The workbench: one policy, five activities as tabs (Design, Simulate, Export, Monitor, Probe).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    void setPolicy(const Policy &policy, const QString &filePath);
    QTabWidget *tabs() const { return m_tabs; }

private:
    void updateTitle();

    QTabWidget *m_tabs = nullptr;
    Policy m_policy;
    QString m_filePath;
};

} // namespace qs
