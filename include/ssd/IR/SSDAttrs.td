//===- SSDAttrs.td - ssd dialect attributes ---------------*- tablegen -*-===//

#ifndef SSD_IR_SSDATTRS_TD
#define SSD_IR_SSDATTRS_TD

include "ssd/IR/SSDDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def SSD_FormSerial : I32EnumAttrCase<"serial", 0>;
def SSD_FormChunked : I32EnumAttrCase<"chunked", 1>;

def SSD_Form : I32EnumAttr<"Form", "algorithm that computes a chunk_scan_varlen op",
    [SSD_FormSerial, SSD_FormChunked]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ssd";
}

def SSD_FormAttr : EnumAttr<SSD_Dialect, SSD_Form, "form"> {
  let summary = "the algorithm chosen for a chunk_scan_varlen op";
  let description = [{
    `#ssd<form serial>`: the token-serial recurrence, parallel over (sequence,
    head, P-tile); for decode, speculative verify and short launches.

    `#ssd<form chunked>`: the SSD block decomposition over chunks of
    `chunk_size` tokens whose three matmuls per chunk run on tensor cores; for
    long prefills.

    `ssd-select-form` attaches it; the lowering passes read it.
  }];
}

#endif // SSD_IR_SSDATTRS_TD
