{
  # jpeg_static_dir: a libjpeg-turbo install prefix (include/, lib/libjpeg.a) built
  # with -fPIC by scripts/prebuild.mjs. Empty (the default, `npm run build:native`
  # and the install fallback): link the system's libjpeg-turbo instead.
  "variables": {
    "jpeg_static_dir%": ""
  },
  "target_defaults": {
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
      # resize_core must round exactly like OpenCV's SSE build: no fused
      # multiply-add contraction (matters on aarch64, where GCC fuses by default).
      "-ffp-contract=off"
    ],
    "xcode_settings": {
      "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
      "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
      "MACOSX_DEPLOYMENT_TARGET": "11.0",
      "OTHER_CPLUSPLUSFLAGS": ["-O3", "-ffp-contract=off"]
    }
  },
  "targets": [
    {
      # mmap, the writer's JPEG encode/decode (system libjpeg-turbo, the
      # library FFCV's fixtures were made with) and the exact area resize.
      "target_name": "beton_native",
      "sources": [
        "src/addon.cc",
        "src/mmap.cc",
        "src/jpeg_error.cc",
        "src/jpeg_decode.cc",
        "src/jpeg_encode.cc",
        "src/resize_area.cc",
        "src/resize_core.cc",
        "src/pixel_map.cc",
        "src/writer_transcode.cc",
        "src/shuffle.cc",
        "src/gather.cc",
        "src/gather_plan.cc"
      ],
      "conditions": [
        ["jpeg_static_dir==''", {
          "libraries": ["-ljpeg"]
        }, {
          # The prebuilt addon carries its own libjpeg-turbo: no system library or
          # headers needed at install or run time. --exclude-libs keeps its jpeg_*
          # symbols private, so a system libjpeg loaded by another module in the
          # same process cannot be mixed up with it.
          "include_dirs": ["<(jpeg_static_dir)/include"],
          "libraries": ["<(jpeg_static_dir)/lib/libjpeg.a", "-Wl,--exclude-libs,ALL"]
        }]
      ]
    },
    {
      # The loader's decode path: libturbojpeg from the @julusian/jpeg-turbo
      # npm package, dlopen'ed at run time (no JPEG library linked).
      "target_name": "beton_turbo",
      "sources": [
        "src/turbo_addon.cc",
        "src/turbo_library.cc",
        "src/turbo_decode.cc",
        "src/resize_core.cc"
      ],
      "libraries": ["-ldl"]
    }
  ]
}
