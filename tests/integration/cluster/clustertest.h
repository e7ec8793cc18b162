#pragma once
// A test on the cluster fixture: fails when run outside ctest (no fixture), and starts only once
// every node says cluster_state:ok (a test before may have just moved slots or roles back).
#include "clusterfixture.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace qs::test {

class ClusterTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (cluster.seeds().empty())
            GTEST_FAIL() << "run through ctest: the cluster fixture sets QS_TEST_CLUSTER_STATE";
        for (int i = 0; i < 50 && !cluster.allOk(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ASSERT_TRUE(cluster.allOk()) << "the cluster is not ok before the test";
    }
    Cluster cluster;
};

} // namespace qs::test
