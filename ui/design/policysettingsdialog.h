#pragma once
// The policy's own fields: name, description, the defaults every route inherits (key, status,
// what to do when Redis cannot answer, which rate-limit headers to send), the Redis key prefix
// and metrics, and the plans (their names, where a request's plan is found, the default). OK
// applies everything as one undo step.
#include "model/policy/policy.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace qs {

class PolicySettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit PolicySettingsDialog(const Policy &policy, QWidget *parent = nullptr);

    // The policy with the dialog's values (routes untouched); only valid when accepted.
    Policy result() const { return m_result; }
    void accept() override; // applies the fields to result()

private:
    void validate();
    QString planProblem() const; // why the plans fields cannot be applied; empty when they can
    void fillDefaultPlans();
    QStringList planNames() const;
    void applyPlans(PlanSettings &plans) const;

    Policy m_result;
    QLineEdit *m_name;
    QPlainTextEdit *m_description; // a paragraph or two: several lines
    QLineEdit *m_key, *m_prefix;
    QSpinBox *m_status;
    QComboBox *m_storeError, *m_headers, *m_missingKey;
    QCheckBox *m_metrics;
    QLineEdit *m_planNames, *m_planFrom, *m_planMap;
    QComboBox *m_planDefault;
    QLabel *m_problem;
    QDialogButtonBox *m_buttons;
};

} // namespace qs
