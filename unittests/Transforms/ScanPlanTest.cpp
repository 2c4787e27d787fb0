//===- ScanPlanTest.cpp - the one decision per scan op --------------------===//
//
// planScan for the launch shapes the lit test test/Transforms/scan-plan.mlir
// prints (decode, verify, long prefill, mixed launches), on the CPU and the
// GPU thresholds, and for what decides before the shape: a forced form,
// dense checkpoints and a shape known only at run time.
//
//===----------------------------------------------------------------------===//

#include "ssd/Transforms/ScanPlan.h"

#include "gtest/gtest.h"

namespace {

using mlir::ssd::Form;
using mlir::ssd::FormChoice;
using mlir::ssd::planScan;
using mlir::ssd::ScanPlan;
using mlir::ssd::ScanRequest;

ScanRequest launch(int64_t tokens, int64_t batch,
                   const mlir::ssd::FormThresholds &thresholds =
                       mlir::ssd::kCPUFormThresholds) {
  ScanRequest request;
  request.tokens = tokens;
  request.batch = batch;
  request.thresholds = thresholds;
  return request;
}

TEST(ScanPlanTest, LaunchShapesOnTheCPU) {
  ScanPlan decode = planScan(launch(8, 8));
  EXPECT_EQ(decode.form, Form::serial);
  EXPECT_FALSE(decode.mixedMinTokens);
  EXPECT_EQ(decode.chunkSize, mlir::ssd::kChunkSizeDefault);
  EXPECT_EQ(planScan(launch(32, 8)).form, Form::serial);
  EXPECT_EQ(planScan(launch(131072, 1)).form, Form::chunked);
  ScanPlan mixed = planScan(launch(131072, 64));
  EXPECT_EQ(mixed.form, Form::serial);
  EXPECT_EQ(mixed.mixedMinTokens, 65536);
}

TEST(ScanPlanTest, LaunchShapesOnTheGPU) {
  const mlir::ssd::FormThresholds &gpu = mlir::ssd::kGPUFormThresholds;
  EXPECT_EQ(planScan(launch(8, 8, gpu)).form, Form::serial);
  EXPECT_FALSE(planScan(launch(32, 8, gpu)).mixedMinTokens);
  EXPECT_EQ(planScan(launch(131072, 1, gpu)).form, Form::chunked);
  ScanPlan mixed = planScan(launch(2048, 64, gpu));
  EXPECT_EQ(mixed.form, Form::serial);
  EXPECT_EQ(mixed.mixedMinTokens, 1024);
}

TEST(ScanPlanTest, ForcedFormNeverMixes) {
  ScanRequest request = launch(131072, 64);
  request.form = FormChoice::Serial;
  EXPECT_EQ(planScan(request).form, Form::serial);
  EXPECT_FALSE(planScan(request).mixedMinTokens);
  request.form = FormChoice::Chunked;
  request.chunkSize = 64;
  EXPECT_EQ(planScan(request).form, Form::chunked);
  EXPECT_EQ(planScan(request).chunkSize, 64);
}

TEST(ScanPlanTest, DenseCheckpointsKeepSerialOnTheCPUOnly) {
  ScanRequest request = launch(131072, 1);
  request.checkpointInterval = 128;
  EXPECT_EQ(planScan(request).form, Form::serial);
  EXPECT_FALSE(planScan(request).mixedMinTokens);
  request.thresholds = mlir::ssd::kGPUFormThresholds;
  EXPECT_EQ(planScan(request).form, Form::chunked);
}

TEST(ScanPlanTest, RuntimeShapeGivesBothBranches) {
  ScanRequest request;
  ScanPlan plan = planScan(request);
  EXPECT_FALSE(plan.form.has_value());
  EXPECT_EQ(plan.forForm(Form::chunked).form, Form::chunked);
  EXPECT_FALSE(plan.forForm(Form::chunked).mixedMinTokens);
  EXPECT_EQ(plan.forForm(Form::serial).form, Form::serial);
  EXPECT_EQ(plan.forForm(Form::serial).mixedMinTokens, 65536);
}

} // namespace
