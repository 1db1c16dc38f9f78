# Compiles each shader (compute, vertex, fragment) to SPIR-V at build time, validates it with
# spirv-val and embeds it as a C header (uint32_t array named <name>_spv). glslangValidator
# writes a depfile so edits to the included kernels/ headers rebuild the shaders that use them.
function(vkphys_compile_shaders target)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/spirv)
  file(MAKE_DIRECTORY ${out_dir}) # glslangValidator exits 0 when it cannot write its output
  set(headers)
  foreach(src IN LISTS ARGN)
    get_filename_component(name ${src} NAME_WE)
    set(spv ${out_dir}/${name}.spv)
    set(hdr ${out_dir}/${name}.spv.h)
    add_custom_command(
      OUTPUT ${hdr}
      COMMAND Vulkan::glslangValidator --target-env vulkan1.1 -I${PROJECT_SOURCE_DIR}
              --depfile ${spv}.d -o ${spv} ${CMAKE_CURRENT_SOURCE_DIR}/${src}
      COMMAND ${SPIRV_VAL} --target-env vulkan1.1 ${spv}
      COMMAND Vulkan::glslangValidator --target-env vulkan1.1 -I${PROJECT_SOURCE_DIR}
              --vn ${name}_spv -o ${hdr} ${CMAKE_CURRENT_SOURCE_DIR}/${src}
      MAIN_DEPENDENCY ${src}
      DEPFILE ${spv}.d
      COMMENT "SPIR-V ${name}"
      VERBATIM)
    list(APPEND headers ${hdr})
  endforeach()
  add_custom_target(${target}_build DEPENDS ${headers})
  add_library(${target} INTERFACE)
  target_include_directories(${target} INTERFACE ${out_dir})
  add_dependencies(${target} ${target}_build)
endfunction()
