{
  "targets": [
    {
      "target_name": "beton_native",
      "sources": [
        "src/addon.cc",
        "src/mmap.cc",
        "src/jpeg_error.cc",
        "src/jpeg_decode.cc",
        "src/jpeg_encode.cc",
        "src/resize_area.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_CPP_EXCEPTIONS",
        "NODE_ADDON_API_DISABLE_DEPRECATED"
      ],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": [
        "-std=c++17",
        "-O3",
        "-fexceptions",
        "-Wall",
        "-Wextra",
        # resize_area must round exactly like OpenCV's SSE build: no fused
        # multiply-add contraction (matters on aarch64, where GCC fuses by default).
        "-ffp-contract=off"
      ],
      "libraries": ["-ljpeg"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "MACOSX_DEPLOYMENT_TARGET": "11.0",
        "OTHER_CPLUSPLUSFLAGS": ["-O3", "-ffp-contract=off"]
      }
    }
  ]
}
